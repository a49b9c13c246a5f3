import { execa } from 'execa';
import { OutputCapture } from '../shared/output-capture.js';
import { groupAlive, killGroup, terminateGroup } from './process-group.js';

export interface RunGroupOptions {
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
  /** Seconds. */
  timeout?: number;
  signal?: AbortSignal;
  /** Cap on the kept output, head and tail (40 % / 60 %). */
  maxOutputBytes: number;
  /** Milliseconds between SIGTERM and SIGKILL. */
  graceMs?: number;
}

export interface RunGroupResult {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  /** The abort reason when `interrupted`. */
  reason?: string;
  truncated: boolean;
  totalBytes: number;
}

/**
 * Runs `file args` as the leader of a new process group, with stdout and stderr merged in
 * the order written and capped. A timeout or an abort terminates the whole group; when the
 * leader exits, stragglers it left in the group are killed so nothing outlives the call.
 */
export async function runInProcessGroup(file: string, args: string[], options: RunGroupOptions): Promise<RunGroupResult> {
  const capture = new OutputCapture(Math.floor(options.maxOutputBytes * 0.4), Math.ceil(options.maxOutputBytes * 0.6));
  const graceMs = options.graceMs ?? 5000;
  const child = execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    all: true,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    ...(options.stdin !== undefined ? { input: options.stdin } : { stdin: 'ignore' as const }),
  });
  child.all?.on('data', (chunk: Buffer) => capture.push(chunk));
  const pid = child.pid;

  let timedOut = false;
  let interrupted = false;
  let reason: string | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    if (pid !== undefined && !stopping) stopping = terminateGroup(pid, graceMs);
  };
  const timer =
    options.timeout !== undefined && options.timeout > 0
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeout * 1000)
      : undefined;
  const onAbort = () => {
    interrupted = true;
    reason = abortReason(options.signal);
    stop();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  const { code, signal } = await exited;
  // The leader is gone; members it left behind (a `cmd &`) would hold the pipe open.
  if (pid !== undefined && groupAlive(pid)) killGroup(pid);
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  const result = await child;
  await stopping;
  return {
    output: capture.text((omitted, total) => `\n... [OUTPUT TRUNCATED - ${omitted} bytes omitted out of ${total} total] ...\n`),
    exitCode: code ?? (result.failed && result.exitCode === undefined && !signal ? 127 : null),
    signal,
    timedOut,
    interrupted,
    reason,
    truncated: capture.truncated,
    totalBytes: capture.total,
  };
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
