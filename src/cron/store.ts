import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { openStateDb, StateTables, type StateDb, type StateLocation } from '../sessions/index.js';
import type { CronJob, CronRun, DeliveryState, HomeChannel, JobState, RunStatus } from './types.js';

/*
 * Rows as the database gives them back, read with zod (never cast). Text columns with a fixed
 * set of values keep today's reading: anything else falls back to the default.
 */
const jobRow = z
  .object({
    id: z.string(),
    thread_key: z.string(),
    platform: z.string(),
    target: z.string(),
    audience: z.string(),
    schedule: z.string(),
    kind: z.string(),
    payload: z.string(),
    deliver: z.string(),
    home_target: z.string().nullable(),
    state: z.string(),
    created_at: z.number(),
    next_run_at: z.number().nullable(),
  })
  .transform(
    (row): CronJob => ({
      id: row.id,
      threadKey: row.thread_key,
      platform: row.platform,
      target: row.target,
      audience: row.audience === 'owner' ? 'owner' : 'others',
      schedule: row.schedule,
      kind: row.kind === 'script' ? 'script' : 'prompt',
      payload: row.payload,
      deliver: row.deliver === 'home' ? 'home' : 'thread',
      homeTarget: row.deliver === 'home' ? row.home_target : null,
      state: row.state === 'paused' ? 'paused' : 'active',
      createdAt: row.created_at,
      nextRunAt: row.next_run_at,
    }),
  );

const runRow = z
  .object({
    seq: z.number(),
    job_id: z.string(),
    started_at: z.number(),
    finished_at: z.number().nullable(),
    status: z.enum(['running', 'success', 'error', 'timeout', 'interrupted', 'skipped']),
    output: z.string(),
    delivery: z.enum(['none', 'pending', 'delivered', 'failed']),
    delivery_error: z.string().nullable(),
    outbox_id: z.string().nullable(),
  })
  .transform(
    (row): CronRun => ({
      seq: row.seq,
      jobId: row.job_id,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      status: row.status,
      output: row.output,
      delivery: row.delivery,
      deliveryError: row.delivery_error,
      outboxId: row.outbox_id,
    }),
  );

/** COUNT(*): a number on SQLite, a bigint's text on some PostgreSQL paths. */
const countRow = z.object({ n: z.coerce.number() });
const seqRow = z.object({ seq: z.number() });
const homeRow = z.object({ platform: z.string(), thread_key: z.string(), target: z.string() });

/** Runs kept per job (for /cron list and the log); older ones are dropped as new ones start. */
const KEEP_RUNS = 20;

/** A job to add; `homeTarget` only for a home job (the home channel when it is made). */
export type NewJob = Omit<CronJob, 'id' | 'createdAt' | 'state' | 'homeTarget'> & { homeTarget?: string | null };

/** The cron tables of the state database (schema 4), through a connection of their own. */
export class CronStore extends StateTables {
  private constructor(db: StateDb) {
    super(db);
  }

  static open(location: StateLocation): CronStore {
    return new CronStore(openStateDb(location));
  }

  /** Adds a job unless its thread has `limits.perThread` or all threads `limits.total`; returns it, or which limit it hit. */
  add(job: NewJob, limits: { perThread: number; total: number }, now = Date.now()): CronJob | 'thread_full' | 'full' {
    return this.db.transaction(() => {
        if (this.countFor(job.threadKey) >= limits.perThread) return 'thread_full' as const;
        if (countRow.parse(this.sql('SELECT COUNT(*) AS n FROM cron_jobs').get()).n >= limits.total) return 'full' as const;
        const id = `j${randomBytes(3).toString('hex')}`;
        this.sql(
          `INSERT INTO cron_jobs (id, thread_key, platform, target, audience, schedule, kind, payload, deliver, home_target, state, created_at, next_run_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)`,
        ).run(id, job.threadKey, job.platform, job.target, job.audience, job.schedule, job.kind, job.payload, job.deliver, job.homeTarget ?? null, now, job.nextRunAt);
        return this.job(id)!;
      }, 'immediate');
  }

  countFor(threadKey: string): number {
    return countRow.parse(this.sql('SELECT COUNT(*) AS n FROM cron_jobs WHERE thread_key = ?').get(threadKey)).n;
  }

  job(id: string): CronJob | undefined {
    const row = this.sql('SELECT * FROM cron_jobs WHERE id = ?').get(id);
    return row === undefined ? undefined : jobRow.parse(row);
  }

  /** Every job, or a thread's, oldest first. */
  jobs(threadKey?: string): CronJob[] {
    const rows = (threadKey === undefined
      ? this.sql('SELECT * FROM cron_jobs ORDER BY created_at, id').all()
      : this.sql('SELECT * FROM cron_jobs WHERE thread_key = ? ORDER BY created_at, id').all(threadKey));
    return rows.map((row) => jobRow.parse(row));
  }

  setState(id: string, state: JobState, nextRunAt: number | null): boolean {
    return this.sql('UPDATE cron_jobs SET state = ?, next_run_at = ? WHERE id = ?').run(state, nextRunAt, id).changes > 0;
  }

  setNextRun(id: string, nextRunAt: number | null): void {
    this.sql('UPDATE cron_jobs SET next_run_at = ? WHERE id = ?').run(nextRunAt, id);
  }

  remove(id: string): boolean {
    return this.sql('DELETE FROM cron_jobs WHERE id = ?').run(id).changes > 0;
  }

  /** Records that a run started (and forgets the job's oldest runs past the ones kept); returns its seq. */
  startRun(jobId: string, now = Date.now(), status: RunStatus = 'running'): number {
    return this.db.transaction(() => {
      const { seq } = seqRow.parse(this.sql('INSERT INTO cron_runs (job_id, started_at, status) VALUES (?, ?, ?) RETURNING seq').get(jobId, now, status));
      this.sql('DELETE FROM cron_runs WHERE job_id = ? AND seq <= ?').run(jobId, seq - KEEP_RUNS);
      return seq;
    });
  }

  finishRun(seq: number, status: RunStatus, output: string, now = Date.now()): void {
    this.sql('UPDATE cron_runs SET status = ?, output = ?, finished_at = ? WHERE seq = ?').run(status, output, now, seq);
  }

  setDelivery(seq: number, delivery: DeliveryState, error: string | null, outboxId: string | null = null): void {
    this.sql('UPDATE cron_runs SET delivery = ?, delivery_error = ?, outbox_id = COALESCE(?, outbox_id) WHERE seq = ?').run(delivery, error, outboxId, seq);
  }

  /** The job's latest runs, newest first. */
  runs(jobId: string, limit = 1): CronRun[] {
    return this.sql('SELECT * FROM cron_runs WHERE job_id = ? ORDER BY seq DESC LIMIT ?').all(jobId, limit).map((row) => runRow.parse(row));
  }

  /** Runs an earlier process left `running` (it stopped or crashed under them) become `interrupted`. */
  interruptLeftovers(now = Date.now()): number {
    return this.sql("UPDATE cron_runs SET status = 'interrupted', finished_at = ?, output = 'the gateway stopped during this run' WHERE status = 'running'").run(now).changes;
  }

  /**
   * Makes `home` its platform's home channel for the home jobs made from now on, and for those
   * made in the home's own thread (their owner chose it). Every other home job keeps the home it
   * was made under. Returns how many home jobs of the platform keep posting elsewhere.
   */
  setHome(home: HomeChannel, now = Date.now()): { kept: number } {
    return this.db.transaction(() => {
      this.sql(
        'INSERT INTO cron_homes (platform, thread_key, target, set_at) VALUES (?, ?, ?, ?) ON CONFLICT (platform) DO UPDATE SET thread_key = excluded.thread_key, target = excluded.target, set_at = excluded.set_at',
      ).run(home.platform, home.threadKey, home.target, now);
      this.sql("UPDATE cron_jobs SET home_target = ? WHERE platform = ? AND thread_key = ? AND deliver = 'home'").run(home.target, home.platform, home.threadKey);
      const { n } = countRow.parse(this.sql("SELECT COUNT(*) AS n FROM cron_jobs WHERE platform = ? AND deliver = 'home' AND thread_key <> ?").get(home.platform, home.threadKey));
      return { kept: n };
    }, 'immediate');
  }

  home(platform: string): HomeChannel | undefined {
    const row = this.sql('SELECT platform, thread_key, target FROM cron_homes WHERE platform = ?').get(platform);
    if (row === undefined) return undefined;
    const home = homeRow.parse(row);
    return { platform: home.platform, threadKey: home.thread_key, target: home.target };
  }
}
