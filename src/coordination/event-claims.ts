import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';

/**
 * Which instance takes a platform event that several receive: every Discord gateway connection
 * of one bot gets every event, Slack sends a mention twice (app_mention and message) and
 * redelivers, and behind a load balancer the copies may reach different instances.
 */
export interface EventClaims {
  /** True for the first instance to claim `key` on `platform`, false for every later one. */
  claim(platform: string, key: string): Promise<boolean>;
}

/** One instance: every event is this one's (the adapters drop their own duplicates). */
export const EVERY_EVENT_HERE: EventClaims = { claim: async () => true };

/** How long a claim is kept: longer than Slack redelivers an event (three retries within minutes) or a Discord resume replays one. */
const CLAIM_MS = 30 * 60_000;

/**
 * Claims in Redis (`SET NX` on `<prefix><platform>:event:<key>`), on the coordination's command
 * connection. When Redis cannot answer, the event is taken (a rare duplicate rather than a lost
 * message) and the log says so.
 */
export function redisEventClaims(redis: Redis, options: { prefix: string; logger: Logger; claimMs?: number }): EventClaims {
  return {
    async claim(platform, key) {
      try {
        const name = `${options.prefix}${platform}:event:${key}`;
        return (await redis.set(name, '1', 'PX', options.claimMs ?? CLAIM_MS, 'NX')) === 'OK';
      } catch (error) {
        options.logger.warn({ err: error, platform, key }, 'could not claim an event in Redis; handling it here');
        return true;
      }
    },
  };
}
