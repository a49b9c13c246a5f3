import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { coordinationKeys, RedisCoordinator, type CoordinatorHandlers, type ThreadLease } from '../../src/coordination/index.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { until } from './helpers.js';

const missing = redisSkipReason('the coordination tests');

interface Seen {
  messages: Array<{ threadKey: string; payload: unknown; from: string }>;
  interrupts: Array<{ threadKey: string; reason: string; from: string }>;
}

describe.runIf(!missing)('instances coordinating through a real redis-server', () => {
  let server: TestRedis;
  let open: RedisCoordinator[] = [];
  let prefix = '';

  const instance = async (instanceId: string, ttlMs = 30_000, onMessage?: CoordinatorHandlers['message']) => {
    const seen: Seen = { messages: [], interrupts: [] };
    const coordinator = await RedisCoordinator.connect(
      { url: server.url, instanceId, leaseTtlMs: ttlMs, prefix },
      {
        message: async (threadKey, payload, from) => {
          seen.messages.push({ threadKey, payload, from });
          await onMessage?.(threadKey, payload, from);
        },
        interrupt: (threadKey, reason, from) => void seen.interrupts.push({ threadKey, reason, from }),
      },
    );
    open.push(coordinator);
    return { coordinator, seen };
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const coordinator of open) await coordinator.close();
    open = [];
    prefix = `t${randomBytes(4).toString('hex')}:`;
  });

  it('messages passed to the owner arrive once each, in the order they were passed', async () => {
    prefix = `t${randomBytes(4).toString('hex')}:`;
    // The owner handles slowly, so later messages queue behind earlier ones in its inbox.
    const a = await instance('A', 30_000, () => new Promise((resolve) => setTimeout(resolve, 2)));
    const b = await instance('B');
    for (let i = 1; i <= 40; i++) await b.coordinator.passMessage('A', 'telegram:1', { n: i });
    await b.coordinator.passMessage('A', 'telegram:1', { n: 'last' });
    await until(() => a.seen.messages.some((m) => (m.payload as { n: unknown }).n === 'last'), 'the last passed message');
    expect(a.seen.messages.map((m) => (m.payload as { n: unknown }).n)).toEqual([...Array.from({ length: 40 }, (_, i) => i + 1), 'last']);
    expect(a.seen.messages.every((m) => m.from === 'B' && m.threadKey === 'telegram:1')).toBe(true);
    expect(b.seen.messages).toEqual([]);
  });

  it('an interrupt sent to any instance reaches the instance that owns the thread, and only it', async () => {
    prefix = `t${randomBytes(4).toString('hex')}:`;
    const a = await instance('A');
    const b = await instance('B');
    const c = await instance('C');
    const held = await a.coordinator.hold('slack:T:C:9', () => undefined);
    expect(held).toBeDefined();
    expect(await b.coordinator.interrupt('slack:T:C:9', 'user sent a new message')).toBe('passed');
    expect(await c.coordinator.interrupt('slack:T:C:9', 'stopped with /stop')).toBe('passed');
    expect(await a.coordinator.interrupt('slack:T:C:9', 'user sent a new message')).toBe('here');
    expect(await b.coordinator.interrupt('slack:T:C:other', 'user sent a new message')).toBe('nobody');
    await until(() => a.seen.interrupts.length === 2, 'both interrupts at the owner');
    expect(a.seen.interrupts).toEqual([
      { threadKey: 'slack:T:C:9', reason: 'user sent a new message', from: 'B' },
      { threadKey: 'slack:T:C:9', reason: 'stopped with /stop', from: 'C' },
    ]);
    expect([...b.seen.interrupts, ...c.seen.interrupts]).toEqual([]);
    await held!.release();
  });

  it('a held lease is renewed while held (its TTL is set back up); when the holder stops renewing it lapses and the next holder has a larger token', async () => {
    prefix = `t${randomBytes(4).toString('hex')}:`;
    const a = await instance('A', 1500);
    const b = await instance('B', 1500);
    const held = await a.coordinator.hold('web:x', () => undefined);
    expect(held).toBeDefined();
    const probe = new Redis(server.url);
    try {
      const key = coordinationKeys(prefix).lease('web:x');
      const first = await probe.pttl(key);
      let lowest = first;
      // A renewal shows as the remaining time going back up.
      await until(async () => {
        const left = await probe.pttl(key);
        lowest = Math.min(lowest, left);
        return left > lowest;
      }, 'a renewal of the held lease');
    } finally {
      await probe.quit();
    }
    expect(await b.coordinator.hold('web:x', () => undefined)).toBeUndefined();
    held!.stopRenewing();
    const next = await until(() => b.coordinator.hold('web:x', () => undefined), 'B to hold the lapsed lease');
    expect(next.lease.token).toBeGreaterThan(held!.lease.token);
    expect(await a.coordinator.leases.isCurrent(held!.lease)).toBe(false);
    await next.release();
  });

  it('an owner that stalled past its TTL is told it lost the thread at its next renewal', async () => {
    prefix = `t${randomBytes(4).toString('hex')}:`;
    const a = await instance('A', 300);
    const b = await instance('B', 300);
    const lost: ThreadLease[] = [];
    const held = await a.coordinator.hold('web:y', (lease) => lost.push(lease));
    // Stand-in for a stall: the lease is taken over while A's renewals have not run.
    await a.coordinator.leases.release(held!.lease);
    const next = await b.coordinator.hold('web:y', () => undefined);
    expect(next).toBeDefined();
    await until(() => lost.length === 1, 'A to notice the lost lease');
    expect(held!.held).toBe(false);
    expect(lost[0].token).toBe(held!.lease.token);
    expect(await b.coordinator.leases.owner('web:y')).toBe('B');
    await held!.release();
    expect(await b.coordinator.leases.owner('web:y')).toBe('B');
    await next!.release();
  });

  it('a thread whose passed message waits holds up no other thread’s, and its own next message waits behind it', async () => {
    prefix = `t${randomBytes(4).toString('hex')}:`;
    const done: string[] = [];
    let letGo: () => void = () => {};
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const a = await instance('A', 30_000, async (threadKey, payload) => {
      const n = (payload as { n: string }).n;
      if (n === 'waits') await held;
      done.push(`${threadKey} ${n}`);
    });
    const b = await instance('B');
    await b.coordinator.passMessage('A', 'web:slow', { n: 'waits' });
    await b.coordinator.passMessage('A', 'web:slow', { n: 'after it' });
    await b.coordinator.passMessage('A', 'web:fast', { n: 'other thread' });
    await until(() => done.includes('web:fast other thread'), 'the other thread’s message');
    expect(done).toEqual(['web:fast other thread']);
    letGo();
    await until(() => done.length === 3, 'the waiting thread’s messages');
    expect(done).toEqual(['web:fast other thread', 'web:slow waits', 'web:slow after it']);
    expect(a.seen.messages).toHaveLength(3);
    // Each handled once and gone from the inbox.
    const raw = new Redis(server.url);
    await until(async () => (await raw.xlen(coordinationKeys(prefix).inbox('A'))) === 0, 'the handled entries deleted');
    raw.disconnect();
  });

  it('an instance that closed is no longer alive, and what was passed to a dead instance and never read is taken over once, in order, by one live instance', async () => {
    prefix = `t${randomBytes(4).toString('hex')}:`;
    const b = await instance('B', 900);
    const c = await instance('C', 900);
    expect(await b.coordinator.isAlive('C')).toBe(true);
    expect(await b.coordinator.isAlive('nobody')).toBe(false);
    // Passed to an instance that never reads them (it died before it could): B's and C's sweeps race for them.
    for (const n of [1, 2, 3]) await b.coordinator.passMessage('D', 'web:z', { n });
    const taken = () => [...b.seen.messages, ...c.seen.messages].filter((m) => m.threadKey === 'web:z');
    await until(() => taken().length === 3, 'the dead instance’s messages taken over');
    await new Promise((resolve) => setTimeout(resolve, 700));
    const [first, second] = [b.seen.messages.length, c.seen.messages.length];
    expect([first, second].sort()).toEqual([0, 3]);
    expect(taken().map((m) => m.payload)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await b.coordinator.takeOver('D')).toBe(0);
  });

  it('the inbox of an instance whose heartbeat stands is left to it; once the heartbeat lapses its unread messages are taken over', async () => {
    prefix = `t${randomBytes(4).toString('hex')}:`;
    const b = await instance('B', 900);
    const raw = new Redis(server.url);
    try {
      // E is alive (its heartbeat stands) but slow to read: nobody takes what waits for it.
      await raw.set(coordinationKeys(prefix).alive('E'), '1', 'PX', 30_000);
      await b.coordinator.passMessage('E', 'web:e', { n: 'for E' });
      expect(await b.coordinator.takeOver('E')).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(b.seen.messages).toEqual([]);
      expect(await raw.xlen(coordinationKeys(prefix).inbox('E'))).toBe(1);
      // E dies: its heartbeat lapses (here: goes).
      await raw.del(coordinationKeys(prefix).alive('E'));
      await until(() => b.seen.messages.length === 1, 'E’s message taken over');
      expect(b.seen.messages[0]).toMatchObject({ threadKey: 'web:e', payload: { n: 'for E' }, from: 'B' });
      expect(await raw.exists(coordinationKeys(prefix).inbox('E'))).toBe(0);
    } finally {
      raw.disconnect();
    }
  });
});
