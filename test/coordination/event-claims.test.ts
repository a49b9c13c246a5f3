import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisEventClaims, type EventClaims } from '../../src/coordination/event-claims.js';
import { silentLogger } from '../../src/shared/logger.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';

const missing = redisSkipReason('the event-claim tests');

describe.runIf(!missing)('claims on platform events in a real redis-server', () => {
  let server: TestRedis;
  let reader: Redis;
  const open: EventClaims[] = [];
  const claims = (prefix: string) => {
    const made = redisEventClaims({ redisUrl: server.url, prefix, logger: silentLogger() });
    open.push(made);
    return made;
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
    const instances = [claims(prefix), claims(prefix), claims(prefix)];
    const outcomes = await Promise.all(instances.map((instance) => instance.claim('discord', 'message:1')));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await instances[0].claim('discord', 'message:1')).toBe(false);
  });

  it('keeps platforms and kinds apart, under <prefix><platform>:event:<key> with an expiry', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const instance = claims(prefix);
    expect(await instance.claim('discord', 'message:7')).toBe(true);
    expect(await instance.claim('discord', 'interaction:7')).toBe(true);
    expect(await instance.claim('slack', 'T1:C1:7.000')).toBe(true);
    expect((await reader.keys(`${prefix}*`)).sort()).toEqual([`${prefix}discord:event:interaction:7`, `${prefix}discord:event:message:7`, `${prefix}slack:event:T1:C1:7.000`]);
    const ttl = await reader.pttl(`${prefix}discord:event:message:7`);
    expect(ttl).toBeGreaterThan(0);
  });

  it('connects again after close', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const instance = claims(prefix);
    expect(await instance.claim('discord', 'message:9')).toBe(true);
    await instance.close();
    expect(await instance.claim('discord', 'message:9')).toBe(false);
  });
});
