import type { Logger } from '../../shared/logger.js';

/**
 * How a cell ended, the same on every transport. After `ok`, `exception` and `busy` the
 * kernel lives on; every other kind means it is gone.
 */
export type CellOutcome =
  /** The cell ran to its end; the kernel and its namespace live on. */
  | { kind: 'ok' }
  /** The cell raised; `traceback` is Python's text (frames of `<cell>` show their lines). The kernel lives on. */
  | { kind: 'exception'; traceback: string }
  /** The cell called `sys.exit(code)`: the kernel has ended. `code` is the int, null for none, or the text of anything else. */
  | { kind: 'exit'; code: number | string | null }
  /** The cell ran past `timeoutMs`: its whole process group was killed. */
  | { kind: 'timeout' }
  /** `signal` aborted (or `kill()` was called) while the cell ran: its whole process group was killed. */
  | { kind: 'interrupted'; reason?: string }
  /**
   * The kernel ended while the cell ran without the cell asking for it (killed from
   * outside, crashed, broke the protocol). `detail` is a short phrase: `killed by SIGKILL`,
   * `exited with code 1`, `broke the control protocol (…)`, or with ` before the cell
   * started` when the kernel was already gone.
   */
  | { kind: 'died'; detail: string }
  /**
   * Another cell of this kernel was still running: this cell was not sent, and the running
   * one goes on undisturbed. The answer of every kernel, whatever carries it (KernelPool
   * runs one cell per kernel at a time, so through the pool this does not happen).
   */
  | { kind: 'busy' };

/**
 * One session kernel, whatever carries it (a Unix socket here, stream frames or polled files
 * on a backend): how it starts is its transport's factory; then cells run one at a time.
 */
export interface Kernel<O extends RunCellOptions = RunCellOptions> {
  /** The kernel's pid (its process group id) where it runs. */
  readonly pid: number;
  /** From ready until it ends, is killed, or a cell ends it (every outcome but ok, exception and busy). */
  readonly alive: boolean;
  /** A cell called sys.exit(): the kernel ended on purpose. */
  readonly endedByExit: boolean;
  /** Cells sent to this kernel so far (not the gateway's own `uncounted` ones). */
  readonly executionCount: number;
  /**
   * Runs one cell. Resolves once every byte the cell wrote to fds 1 and 2 was delivered;
   * callbacks are not called after that. Never rejects for what the cell does, nor when the
   * kernel is busy (`busy`) or gone (`died`, `… before the cell started`).
   * @throws (rejects) KernelCellTooLargeError.
   */
  runCell(code: string, options: O): Promise<CellOutcome>;
  /** Ends the kernel's whole group; a running cell ends as `interrupted` with `reason`. Idempotent. */
  kill(reason?: string): Promise<void>;
}

/** How the kernel process ended. */
export interface KernelExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface KernelStartOptions {
  /** How long the runner may take to report ready; default 10 000 ms. */
  startTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL when the group is killed; default 5 000 ms (a script may trap SIGTERM). */
  graceMs?: number;
  logger?: Logger;
}

export interface RunCellOptions {
  /** Milliseconds; the group is killed after this. 0 or Infinity: no limit. */
  timeoutMs: number;
  /** The gateway's own cell (following a terminal `cd`): not counted in executionCount. */
  uncounted?: boolean;
  /** Aborting kills the kernel's group; `signal.reason` (a string) becomes the outcome's `reason`. */
  signal?: AbortSignal;
  /** Every byte the cell wrote to fd 1, in order, until its outcome settles. */
  onStdout(chunk: Buffer): void;
  /** Every byte the cell wrote to fd 2, in order, until its outcome settles. */
  onStderr(chunk: Buffer): void;
}

/** What a pool reports to `withKernel`'s callback. */
export interface KernelUseInfo {
  /** The kernel already ran a cell for this owner before this call. */
  reused: boolean;
  /**
   * The owner had a kernel whose state is gone and this call runs in a fresh one: it was
   * discarded by `reset`, or lost since the owner's last call (a timeout, interrupt,
   * death, idle reaping or eviction). Not after a cell's `sys.exit()`: that cell's own result
   * reported the end (as hermes-agent does). False for an owner's first kernel and
   * after `dispose()`, which forgets the owner.
   */
  stateReset: boolean;
}

export type KernelState = 'none' | 'idle' | 'busy';
