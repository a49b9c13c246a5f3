import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { coordinationKeys, RedisThreadLeases, type ThreadLease } from '../../src/coordination/index.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { until } from './helpers.js';

const missing = redisSkipReason('the thread lease tests');

describe.runIf(!missing)('thread leases on a real redis-server', () => {
  let server: TestRedis;
  let clients: Redis[] = [];
  const client = () => {
    const redis = new Redis(server.url);
    clients.push(redis);
    return redis;
  };
  /** Two instances' views of the same leases, each on its own connection, under a fresh prefix. */
  const pair = (ttlMs: number) => {
    const keys = coordinationKeys(`t${randomBytes(4).toString('hex')}:`);
    return [new RedisThreadLeases(client(), ttlMs, keys), new RedisThreadLeases(client(), ttlMs, keys)] as const;
  };

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const redis of clients) await redis.quit();
    clients = [];
  });

  it('two owners racing for the same thread: exactly one wins each time, and it is the recorded owner', async () => {
    const [a, b] = pair(30_000);
    for (let i = 0; i < 25; i++) {
      const thread = `telegram:${i}`;
      const [got, other] = await Promise.all([a.acquire(thread, 'A'), b.acquire(thread, 'B')]);
      const winners = [got, other].filter((lease): lease is ThreadLease => lease !== undefined);
      expect(winners).toHaveLength(1);
      expect(await a.owner(thread)).toBe(winners[0].owner);
    }
  });

  it('only the owner renews or releases; a release by another instance changes nothing', async () => {
    const [a, b] = pair(30_000);
    const lease = await a.acquire('web:t1', 'A');
    expect(lease).toBeDefined();
    const forged: ThreadLease = { ...lease!, owner: 'B' };
    expect(await b.release(forged)).toBe(false);
    expect(await b.renew(forged)).toBe(false);
    expect(await b.acquire('web:t1', 'B')).toBeUndefined();
    expect(await a.owner('web:t1')).toBe('A');
    expect(await a.renew(lease!)).toBe(true);
    expect(await a.release(lease!)).toBe(true);
    expect(await a.owner('web:t1')).toBeUndefined();
    const next = await b.acquire('web:t1', 'B');
    expect(next?.token).toBeGreaterThan(lease!.token);
  });

  it('the holder acquiring again keeps its token; only a new owner makes the token grow', async () => {
    const [a] = pair(30_000);
    const first = await a.acquire('web:t2', 'A');
    const again = await a.acquire('web:t2', 'A');
    expect(again?.token).toBe(first?.token);
  });

  it('a paused owner (no renewals) loses the lease after its TTL: the next owner gets a larger token and the paused one can neither renew nor release it', async () => {
    const [a, b] = pair(1000);
    const paused = await a.acquire('slack:T:C:1', 'A');
    expect(paused).toBeDefined();
    expect(await b.acquire('slack:T:C:1', 'B')).toBeUndefined();
    const next = await until(() => b.acquire('slack:T:C:1', 'B'), 'B to get the lapsed lease');
    expect(next.token).toBeGreaterThan(paused!.token);
    expect(await a.renew(paused!)).toBe(false);
    expect(await a.release(paused!)).toBe(false);
    expect(await a.owner('slack:T:C:1')).toBe('B');
  });

  it('a write guarded by a stale fencing token is refused, and the new owner’s write stands', async () => {
    const [a, b] = pair(300);
    const stale = await a.acquire('telegram:7', 'A');
    expect(await a.fencedSet(stale!, 'history:telegram:7', 'from A (current)')).toBe(true);
    const next = await until(() => b.acquire('telegram:7', 'B'), 'B to get the lapsed lease');
    expect(await b.fencedSet(next, 'history:telegram:7', 'from B')).toBe(true);
    expect(await a.fencedSet(stale!, 'history:telegram:7', 'from A (stale)')).toBe(false);
    expect(await a.isCurrent(stale!)).toBe(false);
    expect(await b.isCurrent(next)).toBe(true);
    expect(await client().get('history:telegram:7')).toBe('from B');
  });
});
