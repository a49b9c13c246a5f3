import type { Readable, Writable } from 'node:stream';
import type { Logger } from '../shared/logger.js';

export interface ExecuteOptions {
  /** Seconds; the command's whole process group is killed when it runs longer. */
  timeout?: number;
  /** Working folder inside the environment; defaults to the environment's cwd. */
  cwd?: string;
  stdin?: string;
  /** Aborting kills the command's process group; `signal.reason` is shown in the output. */
  signal?: AbortSignal;
  /** Extra variables for this command, laid over the environment's scrubbed base. */
  env?: Record<string, string>;
  /**
   * For the gateway's own daemons only (the file transport's remote kernel), never for a
   * model's command: what the command starts outside its group may run on after it returns.
   * Otherwise the SSH and Docker backends kill it (hermes_supervisor.py).
   */
  leaveDetached?: boolean;
}

export interface ExecuteResult {
  output: string;
  exit_code: number;
  /** Set when the command was killed because it ran past its timeout. */
  timed_out?: boolean;
  /** Set when the command was killed because `signal` aborted. */
  interrupted?: boolean;
  /** Set when output was cut to the cap (head and tail kept). */
  truncated?: boolean;
}

/**
 * What an environment is, which decides how the gateway may reach its files:
 * - `host`: commands run on this host as the gateway's user, and see this host's files;
 *   the tools may use the file system directly (local).
 * - `isolated`: commands run on this host through `hostCommand`, but see only a view of
 *   their own (sandbox); its files are reached only by running something inside it.
 * - `remote`: commands run elsewhere (SSH, a container, most plugins); everything goes
 *   through `execute` (or the optional file operations).
 * An environment that does not say is `remote`: nothing is assumed about it.
 */
export type EnvironmentKind = 'host' | 'isolated' | 'remote';

/** Options of the file operations. */
export interface FileOptions {
  signal?: AbortSignal;
}

export interface ReadFileOptions extends FileOptions {
  /** Refuse (EFBIG) a file larger than this many bytes, before reading it where possible. */
  maxBytes?: number;
}

/** What `upload` moves into an environment: a host file's path, bytes, or a stream. */
export type UploadSource = string | Buffer | Readable;

/** Options of `upload` and `download`. */
export interface TransferOptions {
  /**
   * Refuse (EFBIG, with the size and this cap) a file larger than this many bytes: before
   * anything moves when the size is known, else as soon as the stream passes it.
   */
  maxBytes?: number;
  /** Aborting stops the transfer; an upload then leaves nothing behind. */
  signal?: AbortSignal;
}

/** Where a script's cut stdout is saved: the host folder it is written to and the same folder as the environment sees it. */
export interface SpillFolder {
  host: string;
  visible: string;
}

/** A way to start a process on this host, for backends that wrap local processes (local, sandbox). */
export interface HostCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * Where commands and scripts run. `terminal`, the file tools and `execute_code` all go
 * through the session's Environment, so they behave alike on every backend.
 */
export interface Environment {
  /** What it is (see EnvironmentKind); absent means `remote`. */
  readonly kind?: EnvironmentKind;
  /** The working folder commands start in, as the environment sees it. */
  readonly cwd: string;
  /**
   * Optional: moves `cwd` to where a terminal command's `cd` left its shell (an absolute
   * folder as the environment sees it), so the next command and execute_code start there, as
   * in hermes-agent. Returns whether it moved; a backend that cannot follow leaves it out.
   */
  followCwd?(path: string): boolean;
  /** Optional, with followCwd: a view of a shared environment with its own working folder, one per session. */
  forSession?(): Environment;
  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult>;
  cleanup(): Promise<void>;
  /**
   * Backends whose processes run on this host implement this: it turns an argv into the
   * command that runs it inside the environment (bubblewrap wraps it; local returns it).
   * `binds` are host paths the process must reach read-write (the staging folder with the
   * RPC socket), `readOnly` those it may only read (the kernel runner).
   * Remote backends leave it out, and execute_code uses the file transport instead.
   */
  hostCommand?(argv: string[], options: HostCommandOptions): HostCommand;
  /**
   * Optional file operations for the file tools; without them the tools go through `execute`.
   * They reach exactly what a command run in the environment reaches (symlinks, `/proc`
   * included) and fail with an errno `code` (ENOENT, EISDIR, EACCES, EROFS, EFBIG).
   */
  readFile?(path: string, options?: ReadFileOptions): Promise<Buffer>;
  /** Writes a file, creating parent folders. */
  writeFile?(path: string, data: Buffer | string, options?: FileOptions): Promise<void>;
  /** Resolves a path the way the environment's commands would (relative to its cwd, `~` its home). */
  resolvePath?(path: string): string;
  /** Where a script's cut stdout is saved so that `read_file` here can open it. */
  spillFolder?(): SpillFolder | undefined;
  /**
   * Optional: moves a file in, as a stream (no whole-file buffering), creating parent
   * folders. The file appears whole (written beside it, then renamed) or not at all.
   * Callers use `uploadTo` (./transfer), which falls back to other means without it.
   */
  upload?(source: UploadSource, remotePath: string, options?: TransferOptions): Promise<void>;
  /**
   * Optional: a stream of the file as the environment's commands see it; fails with an errno
   * `code` (ENOENT, EISDIR, EACCES, EFBIG past `maxBytes`) before the first byte where it can.
   * A numeric `size` property on the stream gives the file's length. Callers use `downloadFrom`.
   */
  download?(remotePath: string, options?: TransferOptions): Readable | Promise<Readable>;
  /**
   * Optional: starts `command` (shell text, run by bash in `cwd` with `env` laid over the
   * environment's scrubbed base, as `execute` does) with its standard streams attached for as
   * long as it runs: bytes written to `stdin` reach its stdin unchanged and in order, its
   * stdout and stderr arrive unchanged and apart, nothing is added to either. execute_code
   * carries a script's tool calls and output over one such stream (docker exec -i, one SSH
   * session) instead of polling files; without it, it polls.
   */
  openStream?(command: string, options?: StreamOptions): EnvironmentStream | Promise<EnvironmentStream>;
}

/** Options of `openStream`. */
export interface StreamOptions {
  /** Variables for the command, laid over the environment's scrubbed base. */
  env?: Record<string, string>;
  /** Working folder inside the environment; defaults to the environment's cwd. */
  cwd?: string;
  /** Aborting ends the command as `kill()` does. */
  signal?: AbortSignal;
}

/** How a stream's command ended (as its local client reports it). */
export interface StreamExit {
  code: number | null;
  signal: string | null;
}

/**
 * A long-lived command inside an environment with its stdio attached. Ending `stdin` gives
 * the command end-of-file: that, not a signal, is how its caller going away reaches it.
 */
export interface EnvironmentStream {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles once the command (and any local client) has ended; never rejects. */
  readonly exited: Promise<StreamExit>;
  /** The last resort: ends the command and what it started there (SIGTERM, then SIGKILL), and the local client. */
  kill(): Promise<void>;
  /** Optional: an idle stream no longer keeps the gateway's event loop alive; `ref` undoes it. */
  unref?(): void;
  ref?(): void;
}

export interface HostCommandOptions {
  cwd?: string;
  /** The process's variables; without them, the environment's own (what its commands get). */
  env?: Record<string, string>;
  binds?: string[];
  readOnly?: string[];
  /** CPU seconds the process may use (RLIMIT_CPU, per process); without it `code_execution.timeout`, or `terminal.limits.cpu_time` when set. */
  cpuSeconds?: number;
}

/** An environment whose processes start on this host (local, sandbox): execute_code runs through `hostCommand`. */
export type HostProcessEnvironment = Environment & {
  readonly kind: 'host' | 'isolated';
  hostCommand(argv: string[], options: HostCommandOptions): HostCommand;
};

/** What the environment is; one that does not say is `remote`. */
export function environmentKind(environment: Environment): EnvironmentKind {
  const kind = environment.kind;
  return kind === 'host' || kind === 'isolated' ? kind : 'remote';
}

/** True when scripts start on this host through `hostCommand` (local, sandbox); the one place that decides it. */
export function runsOnThisHost(environment: Environment): environment is HostProcessEnvironment {
  return environmentKind(environment) !== 'remote' && typeof environment.hostCommand === 'function';
}

export interface CreateEnvironmentOptions {
  cwd: string;
  timeout: number;
  /** The session this environment serves (`task_id` in the reference). */
  taskId: string;
  logger: Logger;
  /** Extra keys are allowed: a provider must ignore keys it does not know. */
  [key: string]: unknown;
}
