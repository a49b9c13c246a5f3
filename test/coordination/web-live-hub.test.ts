import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webLiveEvents, type LiveEvent } from '../../adapters/web/index.js';
import { RedisLiveHub } from '../../src/coordination/index.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { until } from './helpers.js';

const missing = redisSkipReason('the web live events across instances tests');

/* Each hub stands for one instance's web chat; a raw client plays an instance that died. */
describe.skipIf(missing)('RedisLiveHub: the web chat’s live events across instances', () => {
  let redis: TestRedis;
  let raw: Redis;
  const hubs: Array<RedisLiveHub<LiveEvent>> = [];
  /** Each test its own keys and channel. */
  let prefix = '';

  const hub = async (ttlMs = 300): Promise<RedisLiveHub<LiveEvent>> => {
    const made = await RedisLiveHub.connect({ url: redis.url, channel: 'web', events: webLiveEvents, ttlMs, prefix });
    hubs.push(made);
    return made;
  };
  const listen = (on: RedisLiveHub<LiveEvent>, thread: string): LiveEvent[] => {
    const heard: LiveEvent[] = [];
    on.subscribe(thread, (event) => heard.push(event));
    return heard;
  };
  const entry = (id: string): LiveEvent => ({ type: 'entry', entry: { kind: 'user', id, at: 1, text: id } });

  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.url);
  }, 30_000);
  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((made) => made.close()));
  });
  afterAll(async () => {
    raw?.disconnect();
    await redis?.stop();
  });

  it('drops what a stranger on the Redis channel forges (not JSON, an unknown type, missing fields) and keeps hearing real events', async () => {
    prefix = 'forged:';
    const b = await hub();
    const onB = listen(b, 'th1');
    const channel = `${prefix}web:live`;
    for (const text of [
      'not json', 'null', '[]', JSON.stringify({ from: 'x', thread: 'th1' }),
      JSON.stringify({ from: 'x', thread: 'th1', event: { type: 'exec', command: 'rm -rf ~' } }),
      JSON.stringify({ from: 'x', thread: 'th1', event: { type: 'entry', entry: null } }),
      JSON.stringify({ from: 'x', thread: 'th1', event: { type: 'snapshot', busy: false } }),
      JSON.stringify({ from: 'x', thread: 'th1', event: { type: 'busy', busy: 'yes' } }),
      JSON.stringify({ from: 'x', thread: 7, event: { type: 'busy', busy: true } }),
    ]) await raw.publish(channel, text);
    const a = await hub();
    a.publish('th1', entry('real'));
    await a.flushed();
    await until(() => onB.length === 1, 'B to hear the real event');
    expect(onB).toEqual([entry('real')]);
    expect(b.busyElsewhere('th1')).toBe(false);
  });

  it('hands an event to this instance’s pages at once and once, and to the other instance’s pages in the order published', async () => {
    prefix = 'order:';
    const a = await hub();
    const b = await hub();
    const onA = listen(a, 'th1');
    const onB = listen(b, 'th1');
    const elsewhere = listen(b, 'th2');
    for (let i = 0; i < 50; i++) a.publish('th1', entry(`e${i}`));
    expect(onA).toHaveLength(50);
    await a.flushed();
    await until(() => onB.length === 50, 'B to hear the 50 events');
    expect(onB).toEqual(onA);
    expect(elsewhere).toEqual([]);
    // Nothing comes back to A from the channel.
    b.publish('th1', entry('from-b'));
    await until(() => onA.length === 51, 'A to hear B’s event');
    expect(onA.at(-1)).toEqual(entry('from-b'));
    expect(onA).toHaveLength(51);
  });

  it('knows a turn runs on another instance while it runs there (not here), and that it ended', async () => {
    prefix = 'busy:';
    const a = await hub();
    const b = await hub();
    a.publish('th', { type: 'busy', busy: true });
    await a.flushed();
    await until(() => b.busyElsewhere('th'), 'B to hear the turn on A');
    expect(a.busyElsewhere('th')).toBe(false);
    // An instance started mid-turn reads it from Redis.
    const late = await hub();
    expect(late.busyElsewhere('th')).toBe(true);
    a.publish('th', { type: 'busy', busy: false });
    await a.flushed();
    await until(() => !b.busyElsewhere('th') && !late.busyElsewhere('th'), 'B and the late one to hear the turn end');
    expect(await raw.hget(`${prefix}web:busy`, 'th')).toBeNull();
  });

  it('a turn ends for the pages when its instance dies: once its heartbeat lapsed, the busy mark goes and the pages hear busy: false', async () => {
    prefix = 'dead:';
    const b = await hub(200);
    const onB = listen(b, 'th');
    // A "ghost" instance that never kept a heartbeat marks a turn and announces it, as a dying one would have.
    await raw.hset(`${prefix}web:busy`, 'th', 'ghost');
    await raw.publish(`${prefix}web:live`, JSON.stringify({ from: 'ghost', thread: 'th', event: { type: 'busy', busy: true } }));
    await until(() => onB.length === 1, 'B to hear the ghost’s turn');
    expect(b.busyElsewhere('th')).toBe(true);
    await until(() => !b.busyElsewhere('th'), 'B to notice the ghost is gone');
    expect(onB).toEqual([
      { type: 'busy', busy: true },
      { type: 'busy', busy: false },
    ]);
    await until(async () => (await raw.hget(`${prefix}web:busy`, 'th')) === null, 'the dead instance’s mark to go');
    // An instance starting later does not believe a dead one's mark either.
    await raw.hset(`${prefix}web:busy`, 'other', 'ghost');
    const late = await hub(200);
    expect(late.busyElsewhere('other')).toBe(false);
    expect(await raw.hget(`${prefix}web:busy`, 'other')).toBeNull();
  });

  it('drops what is not a live event on the channel, and clears its own marks when it closes', async () => {
    prefix = 'junk:';
    const a = await hub();
    const b = await hub();
    const onB = listen(b, 'th');
    await raw.publish(`${prefix}web:live`, 'not json');
    await raw.publish(`${prefix}web:live`, JSON.stringify({ from: 'x', thread: 'th', event: { type: 'run-this' } }));
    a.publish('th', { type: 'busy', busy: true });
    await a.flushed();
    await until(() => onB.length === 1, 'B to hear A');
    expect(onB).toEqual([{ type: 'busy', busy: true }]);
    await a.close();
    hubs.splice(hubs.indexOf(a), 1);
    expect(await raw.hget(`${prefix}web:busy`, 'th')).toBeNull();
    expect(await raw.exists(`${prefix}web:alive:${a.instanceId}`)).toBe(0);
  });
});
