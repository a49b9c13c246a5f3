import type { CronJob, CronRun } from './types.js';

/** "in 2 s", "in 3 min", "in 5 h", "in 2 d": how far off `at` is. */
export function formatIn(at: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((at - now) / 1000));
  if (seconds < 90) return `in ${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `in ${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `in ${hours} h` : `in ${Math.round(hours / 24)} d`;
}

/** How the last run went, the run and its delivery apart: "success, delivered", "success, delivery failed: …". */
export function runSummary(run: CronRun | undefined): string {
  if (!run) return 'not run yet';
  if (run.status === 'running') return 'running now';
  const delivery =
    run.delivery === 'delivered'
      ? 'delivered'
      : run.delivery === 'failed'
        ? `delivery failed: ${run.deliveryError ?? 'unknown'}`
        : run.delivery === 'pending'
          ? 'delivery pending'
          : 'not delivered';
  return `${run.status}, ${delivery}`;
}

/** One /cron list line. */
export function jobLine(job: CronJob, last: CronRun | undefined, running: boolean, now = Date.now()): string {
  const what = job.kind === 'script' ? 'script' : `prompt “${preview(job.payload)}”`;
  const next = job.state === 'paused' ? 'paused' : job.nextRunAt === null ? 'no next run' : `next ${formatIn(job.nextRunAt, now)}`;
  const where = job.deliver === 'thread' ? 'to this thread' : job.homeTarget ? 'to the home channel' : 'to this thread (its home channel moved after it was made)';
  return `${job.id} · ${job.schedule} · ${what} ${where} · ${next} · last: ${running ? 'running now' : runSummary(last)}`;
}

/** The job as the cronjob tool reports it. */
export function jobView(job: CronJob, last: CronRun | undefined): Record<string, unknown> {
  return {
    id: job.id,
    schedule: job.schedule,
    kind: job.kind,
    [job.kind]: job.payload,
    deliver: job.deliver,
    state: job.state,
    next_run: job.nextRunAt === null ? null : new Date(job.nextRunAt).toISOString(),
    last_run: last ? { status: last.status, delivery: last.delivery, ...(last.deliveryError ? { delivery_error: last.deliveryError } : {}) } : null,
  };
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
