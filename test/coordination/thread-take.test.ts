import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCoordinator, ThreadRouter } from '../../src/coordination/index.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';

const missing = redisSkipReason('the thread-take tests');

describe.runIf(!missing)('taking a thread for the replies an earlier run left (real redis-server)', () => {
  let server: TestRedis;
  const open: Array<{ router: ThreadRouter; coordinator: RedisCoordinator }> = [];
  const handlers = { message: async () => {}, interrupt: () => {} };
  const instance = async (instanceId: string, prefix: string) => {
    const coordinator = await RedisCoordinator.connect({ url: server.url, instanceId, leaseTtlMs: 30_000, prefix }, handlers);
    const router = new ThreadRouter(coordinator);
    router.attach({ dispatch: async () => {}, dispatchPassed: async () => {}, threadState: () => ({ running: false, queued: 0 }) });
    open.push({ router, coordinator });
    return router;
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const { router, coordinator } of open) {
      await router.close();
      await coordinator.close();
    }
    await server?.stop();
  });

  it('is refused while another live instance sends replies in the thread outside its lease, and granted once it is done', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    const sent = await a.sending('telegram:1');
    expect(await b.take('telegram:1')).toBe(false);
    sent();
    // The unmark is on its way: wait for it the way a later start would find it.
    for (let i = 0; i < 100 && !(await b.take('telegram:1')); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await b.take('telegram:1')).toBe(true);
    b.done('telegram:1');
  });

  it('is refused while a live instance holds the thread, and granted to the holder itself', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    expect(await a.take('telegram:2')).toBe(true);
    expect(await b.take('telegram:2')).toBe(false);
    expect(await a.take('telegram:2')).toBe(true);
  });
});
