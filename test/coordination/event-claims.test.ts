import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERY_EVENT_HERE, RedisCoordinator } from '../../src/coordination/index.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';

const missing = redisSkipReason('the event-claim tests');

describe('claims on platform events with one instance', () => {
  it('give every event to this instance, again and again (the adapters drop their own duplicates)', async () => {
    expect(await EVERY_EVENT_HERE.claim('discord', 'message:1')).toBe(true);
    expect(await EVERY_EVENT_HERE.claim('discord', 'message:1')).toBe(true);
  });
});

/* Each coordinator stands for one instance; its event claims are made on its command connection. */
describe.runIf(!missing)('claims on platform events in a real redis-server', () => {
  let server: TestRedis;
  let reader: Redis;
  const open: RedisCoordinator[] = [];
  const handlers = { message: async () => {}, interrupt: () => {} };
  const instance = async (prefix: string) => {
    const made = await RedisCoordinator.connect({ url: server.url, leaseTtlMs: 30_000, prefix }, handlers);
    open.push(made);
    return made.eventClaims();
  };

  beforeAll(async () => {
    server = await startRedis();
    reader = new Redis(server.url);
  });
  afterAll(async () => {
    for (const made of open) await made.close();
    reader?.disconnect();
    await server?.stop();
  });

  it('gives an event to the first of three instances that claims it and refuses it to the others', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const instances = await Promise.all([instance(prefix), instance(prefix), instance(prefix)]);
    const outcomes = await Promise.all(instances.map((claims) => claims.claim('discord', 'message:1')));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await instances[0].claim('discord', 'message:1')).toBe(false);
  });

  it('keeps platforms and kinds apart, under <prefix><platform>:event:<key> with an expiry', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const claims = await instance(prefix);
    expect(await claims.claim('discord', 'message:7')).toBe(true);
    expect(await claims.claim('discord', 'interaction:7')).toBe(true);
    expect(await claims.claim('slack', 'T1:C1:7.000')).toBe(true);
    const events = (await reader.keys(`${prefix}*:event:*`)).sort();
    expect(events).toEqual([`${prefix}discord:event:interaction:7`, `${prefix}discord:event:message:7`, `${prefix}slack:event:T1:C1:7.000`]);
    const ttl = await reader.pttl(`${prefix}discord:event:message:7`);
    expect(ttl).toBeGreaterThan(0);
  });

  it('takes the event when Redis cannot answer (a rare duplicate rather than a lost message)', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const made = await RedisCoordinator.connect({ url: server.url, leaseTtlMs: 30_000, prefix }, handlers);
    const claims = made.eventClaims();
    await made.close();
    expect(await claims.claim('discord', 'message:9')).toBe(true);
  });
});
