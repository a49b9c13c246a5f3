import { execa, type ResultPromise } from 'execa';
import { groupAlive, killGroup, terminateGroup } from './process-group.js';

export interface GroupSpawn {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Text for standard input; without it stdin is closed. */
  stdin?: string;
  /** Merge stdout and stderr into `child.all`, in the order written. */
  all?: boolean;
}

export interface GroupLimits {
  /** Seconds; the whole group is terminated when it runs longer. None or 0: no limit. */
  timeout?: number;
  /** Aborting terminates the whole group; `signal.reason` is kept as the reason. */
  signal?: AbortSignal;
  /** Milliseconds between SIGTERM and SIGKILL. */
  graceMs: number;
}

export interface GroupExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  /** The abort reason when `interrupted`. */
  reason?: string;
  /** Set when the program could not be started at all. */
  spawnError?: string;
}

/** A running group leader, as execa returns it (streams not buffered, never rejecting). */
export type GroupChild = ResultPromise<{ buffer: false; reject: false; all: true }>;

/** Starts `spawn` as the leader of a new process group; attach to its streams before `superviseGroup`. */
export function spawnGroupLeader(spawn: GroupSpawn): GroupChild {
  return execa(spawn.file, spawn.args, {
    cwd: spawn.cwd,
    env: spawn.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    all: spawn.all ?? false,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    ...(spawn.stdin !== undefined ? { input: spawn.stdin } : { stdin: 'ignore' as const }),
  }) as GroupChild;
}

/**
 * Waits for a group leader to end, enforcing the limits on the whole group: a timeout or an
 * abort sends SIGTERM to the group and SIGKILL after the grace. When the leader exits,
 * members it left behind (a `cmd &`) are killed, so nothing outlives the call and the pipes
 * close. Resolves after the streams have ended.
 */
export async function superviseGroup(child: GroupChild, limits: GroupLimits): Promise<GroupExit> {
  const pid = child.pid;
  let timedOut = false;
  let interrupted = false;
  let reason: string | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    if (pid !== undefined && !stopping) stopping = terminateGroup(pid, limits.graceMs);
  };
  const timer =
    limits.timeout !== undefined && limits.timeout > 0
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, limits.timeout * 1000)
      : undefined;
  const onAbort = () => {
    if (timedOut) return;
    interrupted = true;
    reason = abortReason(limits.signal);
    stop();
  };
  if (limits.signal?.aborted) onAbort();
  else limits.signal?.addEventListener('abort', onAbort, { once: true });

  let spawnError: string | undefined;
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      spawnError = error.message;
      resolve({ code: null, signal: null });
    });
  });
  clearTimeout(timer);
  limits.signal?.removeEventListener('abort', onAbort);
  if (pid !== undefined && groupAlive(pid)) killGroup(pid);
  await child;
  await stopping;
  return { exitCode: exit.code, signal: exit.signal, timedOut, interrupted, reason, spawnError };
}

/** The string shown to the model for an aborted signal, or undefined when there is none. */
export function abortReason(signal: AbortSignal | undefined): string | undefined {
  const reason: unknown = signal?.reason;
  if (typeof reason === 'string') return reason || undefined;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message || undefined;
  return undefined;
}

/** `[execution interrupted — R]`, or `[execution interrupted]` without a reason. */
export function interruptedNotice(reason: string | undefined): string {
  return reason ? `[execution interrupted — ${reason}]` : '[execution interrupted]';
}
