import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRunner, ScriptResult } from '../../src/agent/index.js';
import { defaultConfig, type HermesConfig } from '../../src/config/index.js';
import { CronScheduler, CronStore, type JobPoster } from '../../src/cron/index.js';
import { silentLogger } from '../../src/shared/logger.js';

/*
 * The scheduler on a real state.db, with an agent whose scripts the test holds and releases and a
 * poster that records what would reach the chat.
 */
let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

interface Harness {
  store: CronStore;
  scheduler: CronScheduler;
  scripts: string[];
  posts: string[];
  /** The session key and audience of each script run. */
  calls: Array<{ key: string; audience: string | undefined }>;
  /** Lets the scripts run to the end from now on (they wait until then). */
  release: () => void;
}

function harness(cron: Partial<HermesConfig['cron']>, post: JobPoster['post'] = async () => ({ outboxId: 'o-1', state: 'delivered' })): Harness {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-cron-sched-'));
  const store = CronStore.open(join(dir, 'state.db'));
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const scripts: string[] = [];
  const posts: string[] = [];
  const calls: Harness['calls'] = [];
  const agent: AgentRunner = {
    runTurn: async () => ({ status: 'completed', text: 'answer' }),
    newSession: async () => {},
    sessionInfo: () => undefined,
    describe: () => ({ model: 'fake', backend: 'local' }),
    close: async () => {},
    runScript: async (key, code, options): Promise<ScriptResult> => {
      scripts.push(code);
      calls.push({ key, audience: options?.audience });
      const aborted = new Promise<'aborted'>((resolve) => options?.signal?.addEventListener('abort', () => resolve('aborted'), { once: true }));
      if ((await Promise.race([gate.then(() => 'done' as const), aborted])) === 'aborted') return { status: 'interrupted', output: '' };
      return { status: 'success', output: `ran ${code}` };
    },
  };
  const scheduler = new CronScheduler({
    config: { ...defaultConfig().cron, ...cron },
    store,
    agent,
    poster: {
      post: async (platform, target, text) => {
        posts.push(text);
        return post(platform, target, text);
      },
    },
    logger: silentLogger(),
  });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => store.close(), () => scheduler.stop());
  return { store, scheduler, scripts, posts, calls, release: open };
}

function addJob(store: CronStore, schedule: string, nextRunAt: number, payload = 'print(1)') {
  const job = store.add(
    { threadKey: 'telegram:1', platform: 'telegram', target: '{"threadKey":"telegram:1"}', audience: 'others', schedule, kind: 'script', payload, deliver: 'thread', nextRunAt },
    { perThread: 10, total: 10 },
  );
  if (typeof job === 'string') throw new Error(`could not add a job: ${job}`);
  return job;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('the job scheduler', () => {
  it('skips a run missed while the gateway was down by default (cron.missed_runs: skip): nothing runs, the next run is in the future', async () => {
    const { store, scheduler, scripts } = harness({});
    const job = addJob(store, 'every 1h', Date.now() - 60_000);
    const started = Date.now();
    scheduler.start();
    expect(store.job(job.id)!.nextRunAt).toBeGreaterThanOrEqual(started + 3_600_000);
    expect(store.runs(job.id)).toEqual([]);
    expect(scripts).toEqual([]);
  });

  it('runs a missed run once at start-up with cron.missed_runs: run_once, then keeps to the schedule', async () => {
    const { store, scheduler, scripts, posts, calls, release } = harness({ missed_runs: 'run_once' });
    release();
    const job = addJob(store, 'every 1h', Date.now() - 5 * 3_600_000, 'missed');
    const started = Date.now();
    scheduler.start();
    await until(() => posts.length === 1);
    expect(scripts).toEqual(['missed']);
    // In the job's own session, on the backend of the people who could write in its thread.
    expect(calls).toEqual([{ key: `cron:${job.id}`, audience: 'others' }]);
    expect(posts).toEqual([`⏰ ${job.id} (every 1h): ran missed`]);
    expect(store.runs(job.id, 5).map((run) => [run.status, run.delivery])).toEqual([['success', 'delivered']]);
    expect(store.job(job.id)!.nextRunAt).toBeGreaterThanOrEqual(started + 3_600_000);
  });

  it('never overlaps a job with itself: a run due while the last one runs is skipped', async () => {
    const { store, scheduler, scripts, posts, release } = harness({});
    const job = addJob(store, 'every 1s', Date.now());
    scheduler.start();
    await until(() => scripts.length === 1);
    const first = store.job(job.id)!.nextRunAt!;
    // Two more runs fall due while the first is held: the schedule moves on, nothing else starts.
    await until(() => store.job(job.id)!.nextRunAt! >= first + 2000);
    expect(scripts).toHaveLength(1);
    expect(store.runs(job.id, 5).map((run) => run.status)).toEqual(['running']);
    release();
    await until(() => posts.length >= 1);
    expect(store.runs(job.id, 5).at(-1)!.status).toBe('success');
  });

  it('records a run that succeeded apart from its delivery that failed', async () => {
    const { store, scheduler, release } = harness({}, async () => ({ error: 'the telegram platform is not running in this gateway' }));
    release();
    const job = addJob(store, 'every 1h', Date.now() + 3_600_000);
    scheduler.start();
    scheduler.runNow(job);
    await until(() => store.runs(job.id)[0]?.delivery === 'failed');
    expect(store.runs(job.id)[0]).toMatchObject({ status: 'success', delivery: 'failed', deliveryError: 'the telegram platform is not running in this gateway' });
  });

  it('marks runs an earlier process left running as interrupted, and stopping a job ends its run without posting', async () => {
    const { store, scheduler, scripts, posts } = harness({});
    const job = addJob(store, 'every 1h', Date.now() + 3_600_000);
    const left = store.startRun(job.id);
    scheduler.start();
    expect(store.runs(job.id)[0]).toMatchObject({ seq: left, status: 'interrupted' });
    expect(scheduler.runNow(store.job(job.id)!)).toBe(true);
    expect(scheduler.runNow(store.job(job.id)!)).toBe(false);
    await until(() => scripts.length === 1);
    expect(scheduler.stopThread('telegram:2')).toBe(0);
    expect(scheduler.stopThread('telegram:1')).toBe(1);
    await until(() => !scheduler.isRunning(job.id));
    expect(store.runs(job.id)[0]).toMatchObject({ status: 'interrupted', delivery: 'none' });
    expect(posts).toEqual([]);
  });
});
