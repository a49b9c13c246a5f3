import type { HermesConfig } from '../config/index.js';
import { CronError } from './errors.js';
import { nextRunAfter, parseSchedule } from './schedule.js';
import type { CronScheduler } from './scheduler.js';
import type { CronStore } from './store.js';
import type { CronJob, CronRun } from './types.js';

/** The platform's outbox as the jobs read it: where a thread's replies go, and how a posted text ended. */
export interface OutboxView {
  latestTarget(threadKey: string): { platform: string; target: string } | undefined;
  parts(outboxId: string): Array<{ state: string }>;
}

/** A job as asked for: the fields of a job its maker chooses. */
export type JobRequest = Pick<CronJob, 'threadKey' | 'platform' | 'target' | 'audience' | 'schedule' | 'kind' | 'payload' | 'deliver'>;

/**
 * What both the cronjob tool and /cron do to jobs, each confined to one thread: made, listed,
 * paused, resumed, removed, run now, stopped. Errors are CronErrors that say what to do.
 */
export class ThreadJobs {
  constructor(
    private readonly config: HermesConfig['cron'],
    private readonly store: CronStore,
    private readonly scheduler: CronScheduler,
    private readonly outbox: OutboxView,
  ) {}

  create(request: JobRequest): CronJob {
    const schedule = parseSchedule(request.schedule, this.config.min_interval);
    const next = nextRunAfter(schedule, Date.now());
    // A home job posts where the home channel is now, for good: a later /sethome elsewhere does not move it.
    const home = request.deliver === 'home' ? this.store.home(request.platform) : undefined;
    if (request.deliver === 'home' && !home) {
      throw new CronError(
        'CRON_NO_HOME',
        `${request.platform} has no home channel yet: an admin (approvals.admins.${request.platform}) sends /sethome in the chat that should get the output; or deliver to this thread`,
      );
    }
    const job = this.store.add({ ...request, homeTarget: home?.target ?? null, schedule: schedule.text, nextRunAt: next ?? null }, { perThread: this.config.max_jobs_per_thread, total: this.config.max_jobs });
    if (job === 'thread_full') {
      throw new CronError(
        'CRON_TOO_MANY',
        `this thread already has ${this.config.max_jobs_per_thread} scheduled jobs (cron.max_jobs_per_thread): remove one first (/cron remove <id>)`,
      );
    }
    if (job === 'full') throw new CronError('CRON_TOO_MANY', `the gateway already has ${this.config.max_jobs} scheduled jobs (cron.max_jobs): remove some first`);
    this.scheduler.arm();
    return job;
  }

  list(threadKey: string): Array<{ job: CronJob; last: CronRun | undefined; running: boolean }> {
    return this.store.jobs(threadKey).map((job) => ({ job, last: this.lastRun(job.id), running: this.scheduler.isRunning(job.id) }));
  }

  /** The job's latest run, its delivery brought up to date from the outbox (a restart may have delivered it since). */
  lastRun(jobId: string): CronRun | undefined {
    const [run] = this.store.runs(jobId);
    if (!run || run.delivery !== 'pending' || !run.outboxId) return run;
    const parts = this.outbox.parts(run.outboxId);
    const state = parts.some((part) => part.state === 'failed') ? 'failed' : parts.length > 0 && parts.every((part) => part.state === 'delivered') ? 'delivered' : 'pending';
    if (state === 'pending') return run;
    this.store.setDelivery(run.seq, state, state === 'failed' ? 'the platform refused it (see the gateway log)' : null);
    return this.store.runs(jobId)[0];
  }

  pause(threadKey: string, id: string): CronJob {
    const job = this.owned(threadKey, id);
    this.store.setState(job.id, 'paused', null);
    this.scheduler.arm();
    return this.owned(threadKey, id);
  }

  resume(threadKey: string, id: string): CronJob {
    const job = this.owned(threadKey, id);
    this.store.setState(job.id, 'active', this.scheduler.nextFor(job, Date.now()) ?? null);
    this.scheduler.arm();
    return this.owned(threadKey, id);
  }

  /** Removes the job; a run of it that is going is stopped. */
  remove(threadKey: string, id: string): CronJob {
    const job = this.owned(threadKey, id);
    this.scheduler.stopJob(job.id);
    this.store.remove(job.id);
    this.scheduler.arm();
    return job;
  }

  runNow(threadKey: string, id: string): boolean {
    return this.scheduler.runNow(this.owned(threadKey, id));
  }

  stop(threadKey: string, id: string): boolean {
    return this.scheduler.stopJob(this.owned(threadKey, id).id);
  }

  /** The job `id` of `threadKey`; another thread's jobs are not found from here. */
  owned(threadKey: string, id: string): CronJob {
    const job = this.store.job(id.trim());
    if (!job || job.threadKey !== threadKey) {
      throw new CronError('CRON_NO_JOB', `no scheduled job "${id.trim()}" in this thread: /cron list (or the cronjob tool's list) shows the ids`);
    }
    return job;
  }
}
