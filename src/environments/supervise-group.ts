import { resolve } from 'node:path';
import { Duplex } from 'node:stream';
import { execa, type ResultPromise } from 'execa';
import { findExecutable } from './which.js';
import { groupAlive, killGroup, terminateGroup } from './process-group.js';
import { watchRun } from '../shared/run-limits.js';
import { supervisedArgv, supervisorPython } from './supervisor.js';

export interface GroupSpawn {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Text for standard input; without it stdin is closed. */
  stdin?: string;
  /** Merge stdout and stderr into `child.all`, in the order written. */
  all?: boolean;
  /** Milliseconds the supervisor gives the tree between SIGTERM and its own SIGKILL (default 5000). */
  graceMs?: number;
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

/**
 * The lifeline: fd 3 is the far end of a socket only the gateway holds; when the gateway goes
 * — even by SIGKILL, when no handler runs — it closes. The supervisor (hermes_supervisor.py, a
 * child subreaper leading the group) holds it and then kills the command's whole tree, `setsid`
 * and double forks included, as it does when the command ends or is terminated. Without a
 * python3 on PATH a shell watcher holds it instead and kills the group only: a command that
 * leaves the group (setsid) escapes that, but for the sandbox's PID namespace.
 */
const LIFELINE_SCRIPT = '(exec 0<&3 1>/dev/null 2>/dev/null; read -r _; kill -KILL 0) & exec 3<&-; exec "$@"';
const SHELL = '/bin/sh';

/**
 * Starts `spawn` as the leader of a new process group, tied to this process by the lifeline;
 * attach to its streams before `superviseGroup`.
 */
export function spawnGroupLeader(spawn: GroupSpawn): GroupChild {
  // A program that is not there is spawned as is, so it fails the way a spawn fails (ENOENT), not as exit 127.
  const found = findExecutable(spawn.file.includes('/') ? resolve(spawn.cwd, spawn.file) : spawn.file, spawn.env.PATH);
  const python = found ? supervisorPython(spawn.env.PATH) : undefined;
  const [file, args] = !found
    ? [spawn.file, spawn.args]
    : python
      ? [python, supervisedArgv(python, 3, spawn.graceMs ?? 5000, found, spawn.args).slice(1)]
      : [SHELL, ['-c', LIFELINE_SCRIPT, 'hermes-lifeline', found, ...spawn.args]];
  const child = execa(file, args, {
    cwd: spawn.cwd,
    env: spawn.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    all: spawn.all ?? false,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    stdio: [spawn.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'],
    ...(spawn.stdin !== undefined ? { input: spawn.stdin } : {}),
  }) as GroupChild;
  const lifeline: unknown = (child.stdio as readonly unknown[])[3];
  if (lifeline instanceof Duplex) {
    lifeline.on('error', () => {});
    void child.finally(() => lifeline.destroy());
  }
  return child;
}

/**
 * Waits for a group leader to end, enforcing the limits on the whole group: a timeout or an
 * abort sends SIGTERM to the group and SIGKILL after the grace. When the command exits, the
 * supervisor kills what it left behind (a `cmd &`, a `setsid -f`), and what is left of the
 * group goes too, so nothing outlives the call and the pipes close. Resolves after the
 * streams have ended.
 */
export async function superviseGroup(child: GroupChild, limits: GroupLimits): Promise<GroupExit> {
  const pid = child.pid;
  let stopping: Promise<void> | undefined;
  const watch = watchRun({ timeoutSeconds: limits.timeout, signal: limits.signal }, () => {
    if (pid !== undefined && !stopping) stopping = terminateGroup(pid, limits.graceMs);
  });

  let spawnError: string | undefined;
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      spawnError = error.message;
      resolve({ code: null, signal: null });
    });
  });
  const { timedOut, interrupted, reason } = watch.done();
  if (pid !== undefined && groupAlive(pid)) killGroup(pid);
  await child;
  await stopping;
  return { exitCode: exit.code, signal: exit.signal, timedOut, interrupted, reason, spawnError };
}
