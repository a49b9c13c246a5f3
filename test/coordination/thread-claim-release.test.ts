import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCoordinator, ThreadRouter } from '../../src/coordination/index.js';
import type { InboundMessage } from '../../src/gateway/index.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';

const missing = redisSkipReason('the thread claim-and-release tests');

const message = (threadKey: string, text: string): InboundMessage => ({
  platform: 'telegram',
  threadKey,
  chat: { id: '1', type: 'dm' },
  user: { id: '1', name: 'Ada' },
  text,
  messageId: text,
  replyTo: { threadKey },
});

describe.runIf(!missing)('a thread claimed again while its release is on its way (real redis-server)', () => {
  let server: TestRedis;
  const open: Array<{ router: ThreadRouter; coordinator: RedisCoordinator }> = [];
  const passed: Array<{ to: string; payload: unknown }> = [];
  const instance = async (instanceId: string, prefix: string) => {
    const coordinator = await RedisCoordinator.connect(
      { url: server.url, instanceId, leaseTtlMs: 30_000, prefix },
      { message: async (_threadKey, payload) => void passed.push({ to: instanceId, payload }), interrupt: () => {} },
    );
    const router = new ThreadRouter(coordinator);
    // The thread's lane stays busy: only idle() gives the lease up.
    router.attach({ dispatch: async () => {}, threadState: () => ({ running: true, queued: 0 }) });
    open.push({ router, coordinator });
    return { router, coordinator };
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

  it('keeps the lease taken again in Redis: the earlier release, landing after, does not delete it, and another instance cannot take the thread', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const a = await instance('a', prefix);
    const b = await instance('b', prefix);
    expect(await a.router.claim(message('telegram:7', 'first'))).toBe(true);
    // The thread went idle on A and its next message came at once, before the release reached Redis.
    a.router.idle('telegram:7');
    expect(await a.router.claim(message('telegram:7', 'second'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await a.coordinator.leases.owner('telegram:7')).toBe('a');
    // B finds A holding it: the message goes to A, and B does not run the thread beside it.
    expect(await b.router.claim(message('telegram:7', 'third'))).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(passed.map((p) => [p.to, (p.payload as { text: string }).text])).toEqual([['a', 'third']]);
  });
});
