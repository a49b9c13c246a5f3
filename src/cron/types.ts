import type { Audience } from '../environments/index.js';

/** What a job does each time: ask the model a prompt, or run a Python script through execute_code (no model call). */
export type JobKind = 'prompt' | 'script';

/** Where a job's output goes: the thread it was made in, or its platform's home channel (`/sethome`). */
export type JobDelivery = 'thread' | 'home';

export type JobState = 'active' | 'paused';

/** A run's own outcome; `interrupted` when /stop or a shutdown ended it. */
export type RunStatus = 'running' | 'success' | 'error' | 'timeout' | 'interrupted' | 'skipped';

/** Whether a run's output reached the chat, apart from whether the run succeeded. */
export type DeliveryState = 'none' | 'pending' | 'delivered' | 'failed';

export interface CronJob {
  id: string;
  /** The thread the job was made in: it owns the job (/cron there lists it, /stop there stops it). */
  threadKey: string;
  platform: string;
  /** The adapter's reply target of that thread, as JSON. */
  target: string;
  /** Who could write in the thread it came from: its runs use that backend. */
  audience: Audience;
  schedule: string;
  kind: JobKind;
  /** The prompt or the script. */
  payload: string;
  deliver: JobDelivery;
  /**
   * A `home` job's home channel (the reply target, as JSON), recorded when the job was made, so
   * a later /sethome elsewhere does not redirect its output. Null for a `thread` job, and for a
   * home job made before homes were recorded whose home moved since: that one posts in its own thread.
   */
  homeTarget: string | null;
  state: JobState;
  createdAt: number;
  /** When it runs next (ms since the epoch); null when paused or never again. */
  nextRunAt: number | null;
}

export interface CronRun {
  seq: number;
  jobId: string;
  startedAt: number;
  finishedAt: number | null;
  status: RunStatus;
  output: string;
  delivery: DeliveryState;
  deliveryError: string | null;
  /** The outbox entry that carries the output, once it was handed to the gateway. */
  outboxId: string | null;
}

/** A platform's home channel, set with /sethome. */
export interface HomeChannel {
  platform: string;
  threadKey: string;
  target: string;
}
