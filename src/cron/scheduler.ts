import type { AgentRunner } from '../agent/index.js';
import type { HermesConfig } from '../config/index.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { InterruptReason } from '../shared/notices.js';
import { Semaphore } from '../shared/semaphore.js';
import { nextRunAfter, parseSchedule } from './schedule.js';
import { runJob } from './run-job.js';
import type { CronStore } from './store.js';
import type { CronJob, DeliveryState } from './types.js';

/** How a job's output reaches its chat: the gateway's `post` (the outbox). */
export interface JobPoster {
  post(platform: string, target: string, text: string): Promise<{ outboxId: string; state: 'delivered' | 'failed' | 'pending' } | { error: string }>;
}

/**
 * Who runs a due run when several instances share the jobs (src/coordination's RedisJobClaims):
 * `run` here, `taken` by another instance, or `busy` (claimed here, but the job's last run still
 * goes on elsewhere, so this one is skipped).
 */
export interface JobClaims {
  claim(jobId: string, scheduledAt: number): Promise<'run' | 'taken' | 'busy'>;
  /** A run claimed here is over. */
  finished(jobId: string): Promise<void>;
  /** Asks the instance running the job's run to stop it; false when no other instance runs it. */
  stopElsewhere?(jobId: string, threadKey: string, reason: string): Promise<boolean>;
  /** Whether another live instance runs the job now (its runs in the store are not leftovers). */
  runningElsewhere?(jobId: string): Promise<boolean>;
  /** Who stops a run here when another instance asks. */
  onStop?(stopper: (jobId: string, reason: string) => void): void;
}

/** One instance: every due run is its own. */
const OWN_RUNS: JobClaims = { claim: async () => 'run', finished: async () => {} };

export interface SchedulerDeps {
  config: HermesConfig['cron'];
  store: CronStore;
  agent: AgentRunner;
  poster: JobPoster;
  logger: Logger;
  /** Several instances on one store: claims decide which runs a due run (none: this one). */
  claims?: JobClaims;
}

/** How many of a job's latest runs are looked at for ones left open (the store keeps 20). */
const KEEP_LOOKED_AT = 20;
/** What a run left open says, as the store's own leftover marking writes it. */
const LEFTOVER_OUTPUT = 'the gateway stopped during this run';

/** The longest a timer is set for; it is set again from there (Node timers cap at about 24 days). */
const MAX_TIMER_MS = 3_600_000;

/**
 * Runs due jobs: one timer for the nearest run, at most `max_concurrent_runs` at once, never two
 * runs of one job (a run still going when the next is due skips that one). Each run's outcome
 * and its delivery are recorded apart.
 */
export class CronScheduler {
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Map<string, { controller: AbortController; threadKey: string; done: Promise<void> }>();
  private readonly slots: Semaphore;
  private readonly claims: JobClaims;
  /** The latest run of each job another instance claimed: this one waits for the run after it, until the store says later. */
  private readonly taken = new Map<string, number>();
  /** One check for due jobs at a time (a claim is a round trip to Redis). */
  private checking: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.slots = new Semaphore(deps.config.max_concurrent_runs);
    this.claims = deps.claims ?? OWN_RUNS;
    this.claims.onStop?.((jobId, reason) => this.stopJob(jobId, reason));
  }

  /** Takes up the jobs state.db holds: runs a crash left open are marked, missed runs skipped or run once (`cron.missed_runs`). */
  start(now = Date.now()): void {
    const { store, config, logger } = this.deps;
    const elsewhere = this.claims.runningElsewhere?.bind(this.claims);
    if (elsewhere) {
      // Several instances: a run another live instance is running is not a leftover.
      this.checking = this.checking.then(() => this.interruptLeftoversOf(elsewhere, now));
    } else {
      const leftovers = store.interruptLeftovers(now);
      if (leftovers > 0) logger.info({ runs: leftovers }, 'cron: runs the last gateway process left open marked interrupted');
    }
    for (const job of store.jobs()) {
      if (job.state !== 'active') continue;
      if (job.nextRunAt !== null && job.nextRunAt >= now) continue;
      const missed = job.nextRunAt !== null;
      // run_once keeps the missed time: it is due now, and claimed under that time (another instance may be running it already).
      if (!(missed && config.missed_runs === 'run_once')) store.setNextRun(job.id, this.nextFor(job, now) ?? null);
      if (missed) logger.info({ job: job.id, policy: config.missed_runs }, 'cron: a run was missed while the gateway was down');
    }
    this.arm();
  }

  /** Marks `running` runs interrupted, except a job's that a live instance runs now. */
  private async interruptLeftoversOf(elsewhere: (jobId: string) => Promise<boolean>, now: number): Promise<void> {
    try {
      let marked = 0;
      for (const job of this.deps.store.jobs()) {
        const open = this.deps.store.runs(job.id, KEEP_LOOKED_AT).filter((run) => run.status === 'running');
        if (open.length === 0 || this.running.has(job.id) || (await elsewhere(job.id))) continue;
        for (const run of open) this.deps.store.finishRun(run.seq, 'interrupted', LEFTOVER_OUTPUT, now);
        marked += open.length;
      }
      if (marked > 0) this.deps.logger.info({ runs: marked }, 'cron: runs an instance that stopped or died left open marked interrupted');
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'cron: could not mark the runs stopped instances left open');
    }
  }

  /** The next run of `job` after `after`, or undefined when its schedule is unreadable or ends. */
  nextFor(job: CronJob, after: number): number | undefined {
    try {
      return nextRunAfter(parseSchedule(job.schedule, this.deps.config.min_interval), after);
    } catch (error) {
      this.deps.logger.warn({ job: job.id, err: error }, `cron: job ${job.id} has a schedule that cannot be read any more; it will not run`);
      return undefined;
    }
  }

  /** Sets the timer for the nearest due job (call after any change to the jobs). */
  arm(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const times = this.deps.store
      .jobs()
      .map((job) => this.dueAt(job))
      .filter((at): at is number => at !== undefined);
    if (times.length === 0) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Math.min(...times) - Date.now()));
    this.timer = setTimeout(() => this.tick(), delay);
  }

  /** When `job` runs next as this instance sees it: after a run another instance took, the one after that. */
  private dueAt(job: CronJob): number | undefined {
    if (job.state !== 'active' || job.nextRunAt === null) return undefined;
    const taken = this.taken.get(job.id);
    return taken === undefined || job.nextRunAt > taken ? job.nextRunAt : this.nextAfter(job, taken, Date.now());
  }

  /**
   * The run after the one due at `at`, counted from `at` so every instance computes the same
   * time; from `now` when that is past already (the process stalled past a whole period).
   */
  private nextAfter(job: CronJob, at: number, now: number): number | undefined {
    const next = this.nextFor(job, at);
    return next !== undefined && next <= now ? this.nextFor(job, now) : next;
  }

  private tick(): void {
    this.checking = this.checking.then(() => this.check());
  }

  private async check(): Promise<void> {
    if (this.stopped) return;
    try {
      const now = Date.now();
      for (const job of this.deps.store.jobs()) {
        const at = this.dueAt(job);
        if (at === undefined || at > now) continue;
        const claim = await this.claims.claim(job.id, at);
        if (claim === 'taken') {
          // Another instance runs it and moves the job on in the store.
          this.taken.set(job.id, at);
          continue;
        }
        this.taken.delete(job.id);
        // Paused or removed while the claim was on its way: it stays as it was made.
        if (this.deps.store.job(job.id)?.state !== 'active') continue;
        this.deps.store.setNextRun(job.id, this.nextAfter(job, at, now) ?? null);
        if (this.stopped) return;
        if (claim === 'busy' || this.running.has(job.id)) {
          this.deps.logger.warn({ job: job.id, scheduledAt: at }, 'cron: a run is due while the last one still runs; this one is skipped');
          continue;
        }
        this.launch(job, at);
      }
      this.arm();
    } catch (error) {
      // A timer callback that throws would end the process: log it and try again in a minute.
      this.deps.logger.error({ err: error }, 'cron: checking for due jobs failed; trying again in a minute');
      if (!this.stopped) {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.tick(), 60_000);
      }
    }
  }

  /** Runs `job` now (its schedule goes on as it was); false when it is already running. */
  runNow(job: CronJob): boolean {
    if (this.stopped || this.running.has(job.id)) return false;
    this.launch(job);
    return true;
  }

  isRunning(jobId: string): boolean {
    return this.running.has(jobId);
  }

  /** Stops the running job `jobId`: its script's process group is killed. */
  stopJob(jobId: string, reason: string = InterruptReason.stop): boolean {
    const run = this.running.get(jobId);
    if (!run) return false;
    run.controller.abort(reason);
    return true;
  }

  /** Stops the job's running run here or on the instance that runs it; false when none runs. */
  async stopAnywhere(job: CronJob, reason: string = InterruptReason.stop): Promise<boolean> {
    if (this.stopJob(job.id, reason)) return true;
    return (await this.claims.stopElsewhere?.(job.id, job.threadKey, reason)) ?? false;
  }

  /** Stops every running job of `threadKey`, here and on other instances; returns how many. */
  async stopThreadAnywhere(threadKey: string): Promise<number> {
    let stopped = this.stopThread(threadKey);
    const elsewhere = this.claims.stopElsewhere?.bind(this.claims);
    if (!elsewhere) return stopped;
    for (const job of this.deps.store.jobs(threadKey)) {
      if (!this.running.has(job.id) && (await elsewhere(job.id, threadKey, InterruptReason.stop))) stopped++;
    }
    return stopped;
  }

  /** Stops every running job of `threadKey` here; returns how many. */
  stopThread(threadKey: string): number {
    let stopped = 0;
    for (const [id, run] of this.running) if (run.threadKey === threadKey && this.stopJob(id)) stopped++;
    return stopped;
  }

  /** Stops the timer and every running job, and waits for them to settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.checking;
    const runs = [...this.running.values()];
    for (const run of runs) run.controller.abort(InterruptReason.shutdown);
    await Promise.allSettled(runs.map((run) => run.done));
  }

  /** Starts a run of `job`; `scheduledAt` when it is the scheduled run claimed for that time. */
  private launch(job: CronJob, scheduledAt?: number): void {
    const controller = new AbortController();
    const done = this.run(job, controller.signal, scheduledAt)
      .catch((error: unknown) => this.deps.logger.error({ err: error, job: job.id }, 'cron: a job run failed inside the scheduler'))
      .finally(() => {
        this.running.delete(job.id);
        if (scheduledAt !== undefined) {
          this.claims.finished(job.id).catch((error: unknown) => this.deps.logger.warn({ err: error, job: job.id }, 'cron: could not mark a run finished; the mark lapses on its own'));
        }
      });
    this.running.set(job.id, { controller, threadKey: job.threadKey, done });
  }

  private async run(job: CronJob, signal: AbortSignal, scheduledAt: number | undefined): Promise<void> {
    const { store, config, logger } = this.deps;
    const log = logger.child({ job: job.id, thread: job.threadKey, ...(scheduledAt !== undefined ? { scheduledAt } : {}) });
    let release: () => void;
    try {
      release = await this.slots.acquire(signal);
    } catch {
      return;
    }
    let seq: number;
    let outcome;
    try {
      seq = store.startRun(job.id);
      log.info('cron: job started');
      outcome = await runJob(this.deps.agent, job, signal).catch((error: unknown) => ({ status: 'error' as const, text: `the run failed: ${errorMessage(error)}` }));
    } finally {
      release();
    }
    const text = outcome.text.length > config.max_output_chars ? `${outcome.text.slice(0, config.max_output_chars)}\n… (cut at cron.max_output_chars)` : outcome.text;
    store.finishRun(seq, outcome.status, text);
    log.info({ status: outcome.status }, 'cron: job ran');
    // A stopped or shut-down run says nothing more: /stop answered, and a restart must not post it late.
    if (outcome.status === 'interrupted') return;
    await this.deliver(job, seq, outcome.status === 'success' ? text || '(no output)' : `failed (${outcome.status}): ${text || 'no output'}`);
  }

  private async deliver(job: CronJob, seq: number, body: string): Promise<void> {
    const { store } = this.deps;
    // The job as it is now (paused, removed or re-pointed by its own thread's /sethome since the run began).
    const current = store.job(job.id) ?? job;
    // A home job posts to the home it was made under, never to wherever the platform's home is now.
    const where = { platform: current.platform, target: current.homeTarget ?? current.target };
    store.setDelivery(seq, 'pending', null);
    const outcome = await this.deps.poster.post(where.platform, where.target, `⏰ ${current.id} (${current.schedule}): ${body}`);
    if ('error' in outcome) {
      store.setDelivery(seq, 'failed', outcome.error);
      return;
    }
    const state: DeliveryState = outcome.state;
    store.setDelivery(seq, state, state === 'failed' ? 'the platform refused it (see the gateway log)' : null, outcome.outboxId);
  }
}
