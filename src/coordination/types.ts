/** A thread held by one instance: `token` is the fencing token, larger for every new owner. */
export interface ThreadLease {
  threadKey: string;
  /** The instance that holds it. */
  owner: string;
  token: number;
}

/** What one instance passes to another through the receiver's inbox, in order. */
export type PassedEnvelope =
  | { kind: 'message'; threadKey: string; from: string; payload: unknown }
  | { kind: 'interrupt'; threadKey: string; from: string; reason: string }
  /** Stop a scheduled job's run that goes on at the receiver (`threadKey` is the job's thread). */
  | { kind: 'stop-job'; threadKey: string; from: string; jobId: string; reason: string };
