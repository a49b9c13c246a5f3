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
  /** The working folder commands start in, as the environment sees it. */
  readonly cwd: string;
  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult>;
  cleanup(): Promise<void>;
  /**
   * Backends whose processes run on this host implement this: it turns an argv into the
   * command that runs it inside the environment (bubblewrap wraps it; local returns it).
   * `binds` are host paths the process must reach (the RPC socket, the staging folder).
   * Remote backends leave it out, and execute_code uses the file transport instead.
   */
  hostCommand?(argv: string[], options: { cwd?: string; env: Record<string, string>; binds?: string[] }): HostCommand;
  /** Optional fast paths for the file tools; without them the tools go through `execute`. */
  readFile?(path: string): Promise<Buffer>;
  writeFile?(path: string, data: Buffer | string): Promise<void>;
  /** Resolves a path the way the environment's commands would (relative to its cwd). */
  resolvePath?(path: string): string;
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
