import { OutputCapture } from '../shared/output-capture.js';
import type { ExecuteResult } from './types.js';
import { commandTimedOutNotice, interruptedNotice } from '../shared/notices.js';
import { spawnGroupLeader, superviseGroup } from './supervise-group.js';

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
 * the order written and capped (see `superviseGroup` for timeouts, aborts and stragglers).
 */
export async function runInProcessGroup(file: string, args: string[], options: RunGroupOptions): Promise<RunGroupResult> {
  const capture = new OutputCapture(Math.floor(options.maxOutputBytes * 0.4), Math.ceil(options.maxOutputBytes * 0.6));
  const child = spawnGroupLeader({ file, args, cwd: options.cwd, env: options.env, stdin: options.stdin, all: true, graceMs: options.graceMs ?? 5000 });
  child.all?.on('data', (chunk: Buffer) => capture.push(chunk));
  const exit = await superviseGroup(child, { timeout: options.timeout, signal: options.signal, graceMs: options.graceMs ?? 5000 });
  return {
    output: capture.text((omitted, total) => `\n... [OUTPUT TRUNCATED - ${omitted} bytes omitted out of ${total} total] ...\n`),
    exitCode: exit.exitCode ?? (exit.spawnError ? 127 : null),
    signal: exit.signal,
    timedOut: exit.timedOut,
    interrupted: exit.interrupted,
    reason: exit.reason,
    truncated: capture.truncated,
    totalBytes: capture.total,
  };
}

/**
 * A finished command as `Environment.execute` returns it: a timeout adds
 * `[Command timed out after Ns and was killed]` (exit code 124), an interrupt the
 * `[execution interrupted — R]` notice (exit code 130).
 */
export function commandResult(
  run: { output: string; exitCode: number; timedOut: boolean; interrupted: boolean; reason?: string; truncated: boolean },
  timeout: number,
): ExecuteResult {
  const newline = run.output && !run.output.endsWith('\n') ? '\n' : '';
  let { output, exitCode } = run;
  if (run.timedOut) {
    output += `${newline}${commandTimedOutNotice(timeout)}`;
    exitCode = 124;
  } else if (run.interrupted) {
    output += `${newline}${interruptedNotice(run.reason)}`;
    exitCode = 130;
  }
  return {
    output,
    exit_code: exitCode,
    ...(run.timedOut ? { timed_out: true } : {}),
    ...(run.interrupted ? { interrupted: true } : {}),
    ...(run.truncated ? { truncated: true } : {}),
  };
}
