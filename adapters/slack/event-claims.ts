import type { Redis } from 'ioredis';
import type { Logger } from '../../src/shared/logger.js';

/**
 * Which instance takes a Slack message, when several receive it: Slack sends a mention twice
 * (app_mention and message, same channel and ts), and behind a load balancer, or over several
 * Socket Mode connections, the two may reach different instances, as may a redelivery.
 */
export interface SlackEventClaims {
  /** True for the first instance to claim `key`, false for every later one. */
  claim(key: string): Promise<boolean>;
  close(): Promise<void>;
}

/** How long a claim is kept: longer than Slack redelivers an event (three retries within minutes). */
const CLAIM_MS = 30 * 60_000;

/**
 * Claims in Redis (`SET NX`, under `<prefix>slack:event:`). The client connects at the first
 * claim and again after `close()`. When Redis cannot answer, the message is taken (a rare
 * duplicate rather than a lost message) and the log says so.
 */
export function redisEventClaims(options: { redisUrl: string; prefix?: string; logger: Logger }): SlackEventClaims {
  let client: Promise<Redis> | undefined;
  const connect = () =>
    (client ??= import('ioredis').then(({ Redis: RedisClient }) => {
      const made = new RedisClient(options.redisUrl);
      made.on('error', (error: unknown) => options.logger.warn({ err: error }, 'slack: Redis error in the event claims'));
      return made;
    }));
  return {
    async claim(key) {
      try {
        const redis = await connect();
        return (await redis.set(`${options.prefix ?? 'hermes:'}slack:event:${key}`, '1', 'PX', CLAIM_MS, 'NX')) === 'OK';
      } catch (error) {
        options.logger.warn({ err: error, key }, 'slack: could not claim an event in Redis; handling it here');
        return true;
      }
    },
    async close() {
      const closing = client;
      client = undefined;
      if (closing) await (await closing).quit().catch(() => undefined);
    },
  };
}
