import { Redis } from 'ioredis';
import { HermesError, errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';

/**
 * The one way this project makes a Redis client: a bounded retry per command and a listener
 * on its errors (without one ioredis prints every reconnect error to the console).
 * `connection` names it in the log.
 */
export function redisClient(url: string, logger: Logger, connection: string, options: { lazyConnect?: boolean } = {}): Redis {
  const redis = new Redis(url, { lazyConnect: options.lazyConnect ?? false, maxRetriesPerRequest: 3 });
  redis.on('error', (error: unknown) => logger.warn({ err: errorMessage(error), connection }, 'redis connection error'));
  return redis;
}

/**
 * A client connected before it is returned, so a wrong address stops the start with the fix.
 * `user` says who could not reach it (`coordination`, `web chat live events`).
 */
export async function connectRedis(url: string, logger: Logger, connection: string, user = 'coordination'): Promise<Redis> {
  const redis = redisClient(url, logger, connection, { lazyConnect: true });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    // The URL may hold a password: name the host only.
    const host = new URL(url).host;
    throw new HermesError('COORDINATION_UNREACHABLE', `${user}: cannot reach Redis at ${host} (${errorMessage(error)}); check coordination.redis_url or REDIS_URL and that redis-server runs`, {
      cause: error,
    });
  }
  return redis;
}
