import { execa } from 'execa';
import type { HostCommand } from '../environments/types.js';
import { groupAlive, killGroup, terminateGroup } from '../environments/process-group.js';
import { abortReason } from '../environments/run-group.js';
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
  spillDir: string;
}

export interface ScriptRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  interrupted: boolean;
  reason?: string;
  stdout: StdoutSink;
  stderr: OutputCapture;
  spillPath?: string;
  /** Set when the interpreter could not be started at all. */
  spawnError?: string;
}

/**
 * Runs one script process as the leader of its own process group: stdout into a capped,
 * spilling sink, stderr capped, a timeout or an abort terminating the whole group (SIGTERM,
 * then SIGKILL after the grace), and stragglers killed once the leader exits.
 */
export async function runScriptProcess(options: ScriptRunOptions): Promise<ScriptRun> {
  const stdout = new StdoutSink(options.maxStdoutBytes, options.maxSpillBytes, options.spillDir);
  const stderr = new OutputCapture(Math.floor(options.maxStderrBytes * 0.4), Math.ceil(options.maxStderrBytes * 0.6));
  const { command } = options;
  const child = execa(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    stdin: 'ignore',
    buffer: false,
    reject: false,
    stripFinalNewline: false,
  });
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const pid = child.pid;

  let timedOut = false;
  let interrupted = false;
  let reason: string | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    if (pid !== undefined && !stopping) stopping = terminateGroup(pid, options.graceMs);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutSeconds * 1000);
  const onAbort = () => {
    if (timedOut) return;
    interrupted = true;
    reason = abortReason(options.signal);
    stop();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  let spawnError: string | undefined;
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      spawnError = error.message;
      resolve({ code: null, signal: null });
    });
  });
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', onAbort);
  // The leader is gone: whatever it left in its group goes too, so the pipes close.
  if (pid !== undefined && groupAlive(pid)) killGroup(pid);
  await child;
  await stopping;
  const spillPath = await stdout.finish();
  return { exitCode: exit.code, signal: exit.signal, timedOut, interrupted, reason, stdout, stderr, spillPath, spawnError };
}
