import type { HostCommand, SpillFolder } from '../environments/types.js';
import { spawnGroupLeader, superviseGroup, type GroupExit } from '../environments/supervise-group.js';
import { OutputCapture } from '../shared/output-capture.js';
import { StdoutSink } from './stdout-sink.js';

export interface ScriptRunOptions {
  command: HostCommand;
  timeoutSeconds: number;
  graceMs: number;
  signal?: AbortSignal;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  maxSpillBytes: number;
  spill: SpillFolder;
  /** Sees stdout as it is written. */
  onStdout?: (chunk: Buffer) => void;
}

export interface ScriptRun extends GroupExit {
  stdout: StdoutSink;
  stderr: OutputCapture;
  spillPath?: string;
}

/**
 * Runs one script process as the leader of its own process group: stdout into a capped,
 * spilling sink, stderr capped, and the group supervised (timeout, abort, stragglers).
 */
export async function runScriptProcess(options: ScriptRunOptions): Promise<ScriptRun> {
  const stdout = new StdoutSink(options.maxStdoutBytes, options.maxSpillBytes, options.spill);
  const stderr = new OutputCapture(Math.floor(options.maxStderrBytes * 0.4), Math.ceil(options.maxStderrBytes * 0.6));
  const child = spawnGroupLeader({ ...options.command, graceMs: options.graceMs });
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    options.onStdout?.(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exit = await superviseGroup(child, { timeout: options.timeoutSeconds, signal: options.signal, graceMs: options.graceMs });
  const spillPath = await stdout.finish();
  return { ...exit, stdout, stderr, spillPath };
}
