import type { HermesConfig } from '../config/schema.js';
import type { SpillFolder } from '../environments/types.js';
import { KERNEL_BUSY_NOTICE, TOOLS_CHANGED_NOTE, cellTimedOutNotice, interruptedNotice, kernelDiedNotice, kernelExitNotice, kernelInterruptedNotice } from '../shared/notices.js';
import { OutputCapture } from '../shared/output-capture.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { CallGate } from './call-gate.js';
import type { CellRequest, KernelAnswer } from './call-path.js';
import { KernelPool, KernelStartError, type CellOutcome, type PooledKernel } from './kernel/index.js';
import { StdoutSink } from './stdout-sink.js';
import { joinOutput, lastErrorLine, secondsSince, stdoutFields } from './result.js';
import type { ExecuteCodeResult } from './types.js';

/*
 * What every session kernel shares, local (session-kernels.ts) or remote
 * (remote/remote-kernels.ts): the pool, the tool-set check, one gated cell, its result.
 */

/** What any kernel's `runCell` gets from the call: its timeout, its signal and the output sinks. */
export interface CellIo {
  timeoutMs: number;
  signal: AbortSignal;
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
}

/**
 * Runs one cell through `run` (a local or a remote kernel) with the call's output caps and the
 * kernel's gate open for this cell only, so the budget resets every cell; returns the
 * execute_code result (the caller adds `kernel`).
 */
export async function runGatedCell(
  gate: CallGate,
  request: CellRequest,
  config: HermesConfig,
  spill: SpillFolder,
  run: (io: CellIo) => Promise<CellOutcome>,
): Promise<ExecuteCodeResult> {
  const settings = config.code_execution;
  const stdout = new StdoutSink(settings.max_stdout_bytes, settings.max_spill_bytes, spill);
  const stderr = new OutputCapture(Math.floor(settings.max_stderr_bytes * 0.4), Math.ceil(settings.max_stderr_bytes * 0.6));
  const close = gate.open({ allowed: request.allowed, maxCalls: settings.max_tool_calls, context: request.context });
  let calls = 0;
  let outcome: CellOutcome;
  try {
    outcome = await run({
      timeoutMs: settings.timeout * 1000,
      signal: request.context.signal,
      onStdout: (chunk) => {
        stdout.push(chunk);
        request.context.onOutput?.(chunk);
      },
      onStderr: (chunk) => stderr.push(chunk),
    });
  } finally {
    calls = close();
  }
  const spillPath = await stdout.finish();
  const out = stdout.text();
  const base = {
    tool_calls_made: calls,
    duration_seconds: secondsSince(request.startedMs),
    ...stdoutFields({ text: out, truncated: stdout.capture.truncated, totalBytes: stdout.capture.total, omittedBytes: stdout.capture.omitted, spillPath }),
  };
  return cellResult(outcome, out, stderr.text(), settings.timeout, base);
}

/** A pool with the configured cap and idle timeout; every call brings its own start. */
export function sessionKernelPool<K extends PooledKernel>(config: HermesConfig, logger: Logger): KernelPool<K> {
  const settings = config.code_execution;
  return new KernelPool<K>({
    maxKernels: settings.max_session_kernels,
    idleTimeoutMs: settings.kernel_idle_timeout * 1000,
    logger,
  });
}

/** Owners whose last stub is remembered per pool; the oldest are forgotten first. */
const MAX_REMEMBERED_STUBS = 10_000;

/** Per pool, the stub each owner's latest call asked for (the same cached string, not a copy). */
const lastStubs = new WeakMap<object, Map<string, string>>();

/**
 * True when the owner's previous call on `pool` asked for another stub (another set of enabled
 * tools). A kernel imports its stub once, when it starts, so such a call must start a fresh
 * one. Decided when the call is issued: calls queue in that order, so each compares with the
 * one that runs just before it.
 */
function toolSetChanged(pool: object, owner: string, stub: string): boolean {
  let owners = lastStubs.get(pool);
  if (!owners) lastStubs.set(pool, (owners = new Map()));
  const previous = owners.get(owner);
  owners.delete(owner);
  owners.set(owner, stub);
  if (owners.size > MAX_REMEMBERED_STUBS) owners.delete(owners.keys().next().value!);
  return previous !== undefined && previous !== stub;
}

/**
 * Runs a cell in the owner's kernel of `pool` (started by `start` when needed) and adds the
 * `kernel` facts to the result. A call whose enabled tools differ from the previous call's
 * replaces the kernel (its stub is fixed when it starts). When no kernel can be started it
 * returns `{ unavailable: why }`, so the caller can run the code one-shot instead.
 */
export async function runInKernel<K extends PooledKernel & { readonly executionCount: number }>(
  pool: KernelPool<K>,
  request: CellRequest,
  start: () => Promise<K>,
  runCell: (kernel: K) => Promise<ExecuteCodeResult>,
): Promise<KernelAnswer> {
  const changed = toolSetChanged(pool, request.owner, request.stub);
  try {
    return await pool.withKernel(request.owner, { reset: request.reset || changed, start }, async (kernel, info) => {
      const result = await runCell(kernel);
      const note = changed && info.stateReset && !request.reset ? TOOLS_CHANGED_NOTE : undefined;
      return {
        ...result,
        ...(note ? { warning: result.warning ? `${result.warning} ${note}` : note } : {}),
        kernel: {
          mode: 'session',
          reused: info.reused,
          execution_count: kernel.executionCount,
          state_reset: info.stateReset,
          ...(kernel.endedByExit ? { ended: true as const } : {}),
        },
      };
    });
  } catch (error) {
    if (error instanceof KernelStartError) return { unavailable: errorMessage(error) };
    throw error;
  }
}

/** Turns a cell's outcome into the execute_code result (the caller adds `kernel`). */
export function cellResult(
  outcome: CellOutcome,
  stdout: string,
  stderr: string,
  timeout: number,
  base: Omit<ExecuteCodeResult, 'status' | 'output'>,
): ExecuteCodeResult {
  switch (outcome.kind) {
    case 'ok':
      return { status: 'success', output: stdout, exit_code: 0, ...base };
    case 'exception': {
      const line = lastErrorLine(outcome.traceback) ?? 'the cell raised an exception';
      return { status: 'error', output: joinOutput(stdout, stderr, outcome.traceback), exit_code: 1, error: line, ...base };
    }
    case 'timeout': {
      const error = cellTimedOutNotice(timeout);
      return { status: 'timeout', output: joinOutput(stdout, stderr, error), exit_code: null, error, ...base };
    }
    case 'interrupted': {
      return {
        status: 'interrupted',
        output: joinOutput(stdout, interruptedNotice(outcome.reason)),
        exit_code: null,
        error: kernelInterruptedNotice(outcome.reason),
        ...base,
      };
    }
    case 'exit': {
      const code = outcome.code;
      const clean = code === null || code === 0;
      const note = kernelExitNotice(code);
      const exitCode = typeof code === 'number' ? code : clean ? 0 : 1;
      return clean
        ? { status: 'success', output: joinOutput(stdout, stderr, note), exit_code: exitCode, ...base }
        : { status: 'error', output: joinOutput(stdout, stderr, note), exit_code: exitCode, error: note.slice(1, -1), ...base };
    }
    case 'died': {
      const error = kernelDiedNotice(outcome.detail);
      return { status: 'error', output: joinOutput(stdout, stderr, error), exit_code: null, error, ...base };
    }
    case 'busy':
      return { status: 'error', output: KERNEL_BUSY_NOTICE, exit_code: null, error: KERNEL_BUSY_NOTICE, ...base };
  }
}
