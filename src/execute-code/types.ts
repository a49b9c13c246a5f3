/** What execute_code returns to the model, always with these four fields first. */
export interface ExecuteCodeResult {
  status: 'success' | 'error' | 'timeout' | 'interrupted';
  output: string;
  tool_calls_made: number;
  /** Seconds, two decimals. */
  duration_seconds: number;
  exit_code?: number | null;
  /** Present whenever status is not `success`. */
  error?: string;
  stdout_truncated?: boolean;
  stdout_bytes_total?: number;
  /** When stdout was cut: the bytes the output holds (head and tail) and the bytes left out between them. */
  stdout_bytes_captured?: number;
  stdout_bytes_omitted?: number;
  /** The full stdout (capped) under HERMES_HOME/cache/exec/ when it was truncated. */
  stdout_spill_path?: string;
  warning?: string;
  /** Session kernels: how this call ran. */
  kernel?: KernelInfo;
}

export type KernelInfo =
  /** `ended`: this cell's sys.exit() ended the kernel; the next call starts a fresh one (state_reset false: this result said so). */
  | { mode: 'session'; reused: boolean; execution_count: number; state_reset: boolean; ended?: true }
  | { mode: 'per-call'; note: string };

import type { ToolContext } from '../tools/types.js';

export interface ExecuteCodeRequest {
  code: unknown;
  /** The owner of the kernel: a session id, or `<session>::child::<id>` for a subagent. */
  sessionId: string;
  /** Discard the session's kernel before running. */
  reset?: boolean;
  signal?: AbortSignal;
  /** Tools a script may call, beyond the executor's defaults (the session's enabled tools). */
  enabledTools?: readonly string[];
  /** Extra variable names passed through to the child (skills declared them). */
  passthrough?: readonly string[];
  /**
   * The context of the execute_code tool call. When given, the script runs in its
   * environment and its hermes_tools calls are dispatched with it (same signal, same
   * environment, same passthrough). Library callers leave it out and get a local one.
   */
  context?: ToolContext;
}

/** Runs execute_code calls; exported from the package root. */
export interface CodeExecutor {
  execute(request: ExecuteCodeRequest): Promise<ExecuteCodeResult>;
  /** Disposes the session's kernel (on /new or when a session closes). */
  resetSession(sessionId: string): Promise<void>;
  /** Pins a kernel owner so eviction skips it (subagents while they run); returns the unpin. */
  pin?(owner: string): () => Promise<void>;
  /** What /status shows: whether the session has a kernel and whether it is busy. */
  kernelState?(sessionId: string): 'none' | 'idle' | 'busy';
  close(): Promise<void>;
}
