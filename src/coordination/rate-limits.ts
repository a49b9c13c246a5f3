import Bottleneck from 'bottleneck';
import type { Logger } from '../shared/logger.js';
import { redisClient } from './redis-connect.js';

/**
 * Where rate limiters keep their state. In process, each gateway keeps its own limits
 * (`shared()` is undefined); on Redis, every instance's limiters of one name meet on one
 * Bottleneck connection (Bottleneck's clustering), so a bot's rate holds for all of them.
 */
export interface RateLimitStore {
  /** The connection for Bottleneck's `connection` option, or undefined when limits stay in this process. */
  shared(): Promise<Bottleneck.IORedisConnection> | undefined;
  /** Prefix for limiter names, so several gateways (or tests) can share a Redis database. */
  readonly prefix: string;
}

/** One instance: limits in this process. */
export const LIMITS_IN_PROCESS: RateLimitStore = { shared: () => undefined, prefix: '' };

/** The Redis store: one connection (and its subscriber), made at the first use and ended by `close`. */
export function redisRateLimits(url: string, prefix: string, logger: Logger): RateLimitStore & { close(): Promise<void> } {
  let made: Bottleneck.IORedisConnection | undefined;
  return {
    prefix,
    shared() {
      if (!made) {
        // Bottleneck subscribes on a duplicate of this client, which must connect by itself: not lazy.
        const client = redisClient(url, logger, 'shared rate limits');
        made = new Bottleneck.IORedisConnection({ client });
        made.on('error', (error: unknown) => logger.warn({ err: error }, 'Redis error in the shared rate limits'));
      }
      // Limiters wait for the connection to be ready themselves.
      return Promise.resolve(made);
    },
    async close() {
      const connection = made;
      made = undefined;
      await connection?.disconnect();
    },
  };
}
