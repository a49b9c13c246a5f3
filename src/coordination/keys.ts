/** Redis key names, all under one prefix so several gateways can share a Redis database. */
export interface CoordinationKeys {
  lease(threadKey: string): string;
  fence(threadKey: string): string;
  inbox(instanceId: string): string;
  /** Present while the instance runs (renewed like a lease). */
  alive(instanceId: string): string;
  /** The instances that have (or had) an inbox: the sweep for dead instances' messages looks here. */
  inboxes: string;
  /** The instances sending replies in the thread without holding its lease (a job's output, a command's answer). */
  sending(threadKey: string): string;
  /** The instance whose session kernel last held the thread's Python state. */
  kernel(threadKey: string): string;
  /** Who runs a scheduled job's run due at `scheduledAt` (one key per run, set once). */
  jobRun(jobId: string, scheduledAt: number): string;
  /** The instance running a job now (so a run never overlaps the last one elsewhere). */
  jobRunning(jobId: string): string;
}

export const DEFAULT_PREFIX = 'hermes:';

export function coordinationKeys(prefix = DEFAULT_PREFIX): CoordinationKeys {
  return {
    lease: (threadKey) => `${prefix}lease:${threadKey}`,
    fence: (threadKey) => `${prefix}fence:${threadKey}`,
    inbox: (instanceId) => `${prefix}inbox:${instanceId}`,
    alive: (instanceId) => `${prefix}alive:${instanceId}`,
    inboxes: `${prefix}inboxes`,
    sending: (threadKey) => `${prefix}sending:${threadKey}`,
    kernel: (threadKey) => `${prefix}kernel:${threadKey}`,
    jobRun: (jobId, scheduledAt) => `${prefix}job-run:${jobId}:${scheduledAt}`,
    jobRunning: (jobId) => `${prefix}job-running:${jobId}`,
  };
}
