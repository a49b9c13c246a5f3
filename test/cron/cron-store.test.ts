import { describe, expect, it } from 'vitest';
import { CronStore, type NewJob } from '../../src/cron/store.js';
import { MIGRATIONS, type StateLocation } from '../../src/sessions/index.js';
import { storeEngines, useEngine } from '../sessions/engines.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

const open = closeAfterEach((location: StateLocation) => CronStore.open(location));

const job = (threadKey = 'telegram:1'): NewJob => ({
  threadKey,
  platform: 'telegram',
  target: `{"threadKey":"${threadKey}"}`,
  audience: 'others',
  schedule: 'every 5m',
  kind: 'script',
  payload: 'print(1)',
  deliver: 'thread',
  nextRunAt: 1_800_000_000_000,
});

describe.each(storeEngines('the job store tests'))('the job store on $name', ({ name }) => {
  const engine = useEngine(name);

  it('adds jobs within the per-thread and total limits and says which limit a job hit', async () => {
    const store = open(await engine.fresh());
    const first = store.add(job(), { perThread: 1, total: 2 }, 5);
    expect(first).toMatchObject({ threadKey: 'telegram:1', state: 'active', createdAt: 5, nextRunAt: 1_800_000_000_000, audience: 'others', kind: 'script' });
    expect(store.add(job(), { perThread: 1, total: 2 })).toBe('thread_full');
    expect(typeof store.add(job('telegram:2'), { perThread: 1, total: 2 })).toBe('object');
    expect(store.add(job('telegram:3'), { perThread: 1, total: 2 })).toBe('full');
    expect(store.countFor('telegram:1')).toBe(1);
    expect(store.jobs().map((j) => j.threadKey)).toEqual(['telegram:1', 'telegram:2']);
    expect(store.jobs('telegram:2')).toHaveLength(1);
  });

  it('pauses, reschedules and removes a job', async () => {
    const store = open(await engine.fresh());
    const added = store.add(job(), { perThread: 5, total: 5 });
    if (typeof added === 'string') throw new Error(added);
    expect(store.setState(added.id, 'paused', null)).toBe(true);
    expect(store.job(added.id)).toMatchObject({ state: 'paused', nextRunAt: null });
    store.setNextRun(added.id, 1_900_000_000_000);
    expect(store.job(added.id)?.nextRunAt).toBe(1_900_000_000_000);
    expect(store.setState('nope', 'active', null)).toBe(false);
    expect(store.remove(added.id)).toBe(true);
    expect(store.remove(added.id)).toBe(false);
    expect(store.job(added.id)).toBeUndefined();
  });

  it('records runs, keeps the latest 20, and marks the ones a stopped process left running as interrupted', async () => {
    const store = open(await engine.fresh());
    const added = store.add(job(), { perThread: 5, total: 5 });
    if (typeof added === 'string') throw new Error(added);
    const seqs: number[] = [];
    for (let i = 0; i < 22; i++) seqs.push(store.startRun(added.id, 1000 + i));
    expect(new Set(seqs).size).toBe(22);
    store.finishRun(seqs[21], 'success', 'out', 2000);
    store.setDelivery(seqs[21], 'delivered', null, 'o-1');
    store.setDelivery(seqs[21], 'delivered', null);
    const [latest] = store.runs(added.id);
    expect(latest).toEqual({ seq: seqs[21], jobId: added.id, startedAt: 1021, finishedAt: 2000, status: 'success', output: 'out', delivery: 'delivered', deliveryError: null, outboxId: 'o-1' });
    expect(store.runs(added.id, 100)).toHaveLength(20);
    expect(store.interruptLeftovers(3000)).toBe(19);
    expect(store.runs(added.id, 2)[1]).toMatchObject({ status: 'interrupted', finishedAt: 3000 });
  });

  it('keeps one home channel per platform, the last one set', async () => {
    const store = open(await engine.fresh());
    store.setHome({ platform: 'telegram', threadKey: 'telegram:1', target: '{}' });
    store.setHome({ platform: 'telegram', threadKey: 'telegram:2', target: '{"b":1}' });
    expect(store.home('telegram')).toEqual({ platform: 'telegram', threadKey: 'telegram:2', target: '{"b":1}' });
    expect(store.home('slack')).toBeUndefined();
  });

  it('a home job keeps the home it was made under: /sethome elsewhere moves the home for later jobs only, and re-points the jobs of its own thread', async () => {
    const store = open(await engine.fresh());
    store.setHome({ platform: 'telegram', threadKey: 'telegram:100', target: '{"chat":100}' });
    const ada = store.add({ ...job('telegram:1'), deliver: 'home', homeTarget: '{"chat":100}' }, { perThread: 5, total: 5 });
    const bob = store.add({ ...job('telegram:2'), deliver: 'home', homeTarget: '{"chat":100}' }, { perThread: 5, total: 5 });
    if (typeof ada !== 'object' || typeof bob !== 'object') throw new Error('not added');
    // The home moves to Bob's chat: Ada's job stays where it was made; Bob's own job follows his choice.
    expect(store.setHome({ platform: 'telegram', threadKey: 'telegram:2', target: '{"chat":2}' })).toEqual({ kept: 1 });
    expect(store.job(ada.id)?.homeTarget).toBe('{"chat":100}');
    expect(store.job(bob.id)?.homeTarget).toBe('{"chat":2}');
    expect(store.home('telegram')?.target).toBe('{"chat":2}');
  });

  it('migrates home jobs of an older state.db: a job whose home has not moved since it was made keeps it; one whose home moved (or had none) posts in its own thread', async () => {
    const location = await engine.fresh();
    engine.schemaAt(location, 4);
    const raw = engine.raw(location);
    const insert = (id: string, thread: string, deliver: string, createdAt: number) =>
      raw
        .prepare(
          `INSERT INTO cron_jobs (id, thread_key, platform, target, audience, schedule, kind, payload, deliver, state, created_at, next_run_at)
           VALUES (?, ?, 'telegram', ?, 'others', 'every 5m', 'script', 'print(1)', ?, 'active', ?, NULL)`,
        )
        .run(id, thread, `{"own":"${thread}"}`, deliver, createdAt);
    raw.prepare("INSERT INTO cron_homes (platform, thread_key, target, set_at) VALUES ('telegram', 'telegram:9', '{\"home\":9}', 2000)").run();
    insert('jafter', 'telegram:1', 'home', 3000); // made under the current home
    insert('jbefore', 'telegram:2', 'home', 1000); // made before the home was (re)set: it never chose this one
    insert('jthread', 'telegram:3', 'thread', 3000);
    const store = open(location);
    expect(engine.version(location)).toBe(MIGRATIONS.length);
    expect(store.job('jafter')).toMatchObject({ deliver: 'home', homeTarget: '{"home":9}' });
    expect(store.job('jbefore')).toMatchObject({ deliver: 'home', homeTarget: null, target: '{"own":"telegram:2"}' });
    expect(store.job('jthread')).toMatchObject({ deliver: 'thread', homeTarget: null });
  });

  it('two instances on one database share the jobs and the limits', async () => {
    const location = await engine.fresh();
    const a = open(location);
    const b = open(location);
    expect(typeof a.add(job(), { perThread: 1, total: 5 })).toBe('object');
    expect(b.add(job(), { perThread: 1, total: 5 })).toBe('thread_full');
    expect(b.jobs().map((j) => j.threadKey)).toEqual(['telegram:1']);
  });
});
