import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coordinationKeys, RedisCoordinator } from '../../src/coordination/index.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';

const missing = redisSkipReason('the job-claim tests');

describe.runIf(!missing)('claims on scheduled job runs in a real redis-server', () => {
  let server: TestRedis;
  const open: RedisCoordinator[] = [];
  const handlers = { message: async () => {}, interrupt: () => {} };
  const connect = (instanceId: string, prefix: string) =>
    RedisCoordinator.connect({ url: server.url, instanceId, leaseTtlMs: 30_000, prefix }, handlers).then((made) => (open.push(made), made));

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const coordinator of open) await coordinator.close();
    await server?.stop();
  });

  it('gives a scheduled run to the first instance that claims it and refuses it to the others', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id) => connect(id, prefix)));
    const claims = [a, b, c].map((coordinator) => coordinator.jobClaims(60_000));
    const outcomes = await Promise.all(claims.map((claim) => claim.claim('j1', 1000)));
    expect(outcomes.filter((outcome) => outcome === 'run')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'taken')).toHaveLength(2);
  });

  it('skips the next run while the last one goes on at a live instance, and runs it once that one finished', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const [a, b] = await Promise.all(['a', 'b'].map((id) => connect(id, prefix)));
    const [onA, onB] = [a.jobClaims(60_000), b.jobClaims(60_000)];
    expect(await onA.claim('j1', 1000)).toBe('run');
    expect(await onB.claim('j1', 2000)).toBe('busy');
    await onA.finished('j1');
    expect(await onB.claim('j1', 3000)).toBe('run');
  });

  it('does not count the running mark of an instance whose heartbeat lapsed (it died mid-run)', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const b = await connect('b', prefix);
    const raw = new Redis(server.url);
    try {
      const keys = coordinationKeys(prefix);
      // A run of instance "dead" is marked, and "dead" has no heartbeat.
      await raw.set(keys.jobRunning('j1'), 'dead', 'PX', 60_000);
      expect(await b.jobClaims(60_000).claim('j1', 1000)).toBe('run');
      expect(await raw.get(keys.jobRunning('j1'))).toBe('b');
    } finally {
      raw.disconnect();
    }
  });
});
