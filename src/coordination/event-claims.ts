import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import { DEFAULT_PREFIX } from './keys.js';

/**
 * Which instance takes a platform event that several receive: every Discord gateway connection
 * of one bot gets every event, Slack sends a mention twice (app_mention and message) and
 * redelivers, and behind a load balancer the copies may reach different instances.
 */
export interface EventClaims {
  /** True for the first instance to claim `key` on `platform`, false for every later one. */
  claim(platform: string, key: string): Promise<boolean>;
  close(): Promise<void>;
}

/** How long a claim is kept: longer than Slack redelivers an event (three retries within minutes) or a Discord resume replays one. */
const CLAIM_MS = 30 * 60_000;

/**
 * Claims in Redis (`SET NX` on `<prefix><platform>:event:<key>`). The client connects at the
 * first claim and again after `close()`. When Redis cannot answer, the event is taken (a rare
 * duplicate rather than a lost message) and the log says so.
 */
export function redisEventClaims(options: { redisUrl: string; prefix?: string; logger: Logger; claimMs?: number }): EventClaims {
  let client: Promise<Redis> | undefined;
  const connect = () =>
    (client ??= import('ioredis').then(({ Redis: RedisClient }) => {
      const made = new RedisClient(options.redisUrl);
      made.on('error', (error: unknown) => options.logger.warn({ err: error }, 'Redis error in the event claims'));
      return made;
    }));
  return {
    async claim(platform, key) {
      try {
        const redis = await connect();
        const name = `${options.prefix ?? DEFAULT_PREFIX}${platform}:event:${key}`;
        return (await redis.set(name, '1', 'PX', options.claimMs ?? CLAIM_MS, 'NX')) === 'OK';
      } catch (error) {
        options.logger.warn({ err: error, platform, key }, 'could not claim an event in Redis; handling it here');
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
