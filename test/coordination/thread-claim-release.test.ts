import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { coordinationKeys } from '../../src/coordination/index.js';
import type { InboundMessage } from '../../src/gateway/index.js';
import { redisSkipReason } from '../helpers/redis.js';
import { useRouterInstances } from './router-instances.js';
import { adaMessage } from './helpers.js';

const missing = redisSkipReason('the thread claim-and-release tests');

const message = (threadKey: string, text: string): InboundMessage => adaMessage(threadKey, text);

describe.runIf(!missing)('a thread claimed again while its release is on its way (real redis-server)', () => {
  const passed: Array<{ to: string; payload: unknown }> = [];
  const routers = useRouterInstances();
  // The thread's lane stays busy: only idle() gives the lease up.
  const instance = (instanceId: string, prefix: string, leaseTtlMs = 30_000) =>
    routers.instance(instanceId, prefix, { leaseTtlMs, running: true, message: async (_threadKey, payload) => void passed.push({ to: instanceId, payload }) });

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

  it('a message for a thread whose owner died runs after what was passed to the dead owner and never read, and under a new lease', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const keys = coordinationKeys(prefix);
    const raw = new Redis(routers.server().url);
    try {
      // D held the thread and died: its lease stands a little longer, its heartbeat is gone.
      await raw.set(keys.lease('telegram:8'), 'D', 'PX', 600);
      await raw.set(keys.fence('telegram:8'), '5');
      const b = await instance('b', prefix, 900);
      await b.coordinator.passMessage('D', 'telegram:8', message('telegram:8', 'to the dead'));
      const order: string[] = [];
      const seen = () => passed.filter((p) => p.to === 'b').map((p) => (p.payload as { text: string }).text);
      const ranHere = await b.router.claim(message('telegram:8', 'sent after'));
      if (ranHere) order.push(...seen(), 'sent after');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      if (!ranHere) order.push(...seen());
      expect(order).toEqual(['to the dead', 'sent after']);
      if (ranHere) {
        // The thread is B's now, under a token larger than the dead owner's.
        expect(await b.coordinator.leases.owner('telegram:8')).toBe('b');
        expect(Number(await raw.get(keys.fence('telegram:8')))).toBeGreaterThan(5);
      }
      expect(await raw.exists(keys.inbox('D'))).toBe(0);
    } finally {
      raw.disconnect();
    }
  });
});
