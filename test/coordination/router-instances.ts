import { afterAll, beforeAll } from 'vitest';
import { RedisCoordinator, ThreadRouter } from '../../src/coordination/index.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

/*
 * Instances of the thread router on one real redis-server, each a RedisCoordinator and a
 * ThreadRouter: the Redis starts before the file's tests, and every router and coordinator made
 * is closed after them, then the Redis stops.
 */

export interface RouterInstanceOptions {
  leaseTtlMs?: number;
  /** What the instance does with a message passed to its inbox. */
  message?: (threadKey: string, payload: unknown) => Promise<void>;
  /** Whether the instance's lanes report a running turn (then only idle() gives the lease up). */
  running?: boolean;
}

export interface RouterInstances {
  server: () => TestRedis;
  instance: (instanceId: string, prefix: string, options?: RouterInstanceOptions) => Promise<{ router: ThreadRouter; coordinator: RedisCoordinator }>;
}

export function useRouterInstances(): RouterInstances {
  let server: TestRedis | undefined;
  const open: Array<{ router: ThreadRouter; coordinator: RedisCoordinator }> = [];
  beforeAll(async () => {
    server = await startRedis();
  }, 30_000);
  afterAll(async () => {
    for (const { router, coordinator } of open) {
      await router.close();
      await coordinator.close();
    }
    await server?.stop();
  });
  const started = (): TestRedis => {
    if (!server) throw new Error('redis-server has not started');
    return server;
  };
  return {
    server: started,
    instance: async (instanceId, prefix, options = {}) => {
      const coordinator = await RedisCoordinator.connect(
        { url: started().url, instanceId, leaseTtlMs: options.leaseTtlMs ?? 30_000, prefix },
        { message: options.message ?? (async () => {}), interrupt: () => {} },
      );
      const router = new ThreadRouter(coordinator);
      const running = options.running ?? false;
      router.attach({ dispatch: async () => {}, dispatchPassed: async () => {}, threadState: () => ({ running, queued: 0 }) });
      open.push({ router, coordinator });
      return { router, coordinator };
    },
  };
}
