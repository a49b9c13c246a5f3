import { constants } from 'node:os';
import type { Environment } from '../../environments/types.js';
import { buildChildEnv } from '../../environments/child-env.js';
import { remoteEnv } from '../../environments/remote-env.js';
import { watchRun } from '../../shared/run-limits.js';
import { OutputCapture } from '../../shared/output-capture.js';
import { errorMessage } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { settleWithin } from '../kernel/settle-within.js';
import { scriptResult } from '../per-call-execution.js';
import type { ScriptRun } from '../per-call.js';
import { RpcServer } from '../rpc/server.js';
import { PYTHON_CHILD_ENV } from '../script-env.js';
import { StagingDir } from '../staging.js';
import { StdoutSink } from '../stdout-sink.js';
import { joinOutput, secondsSince, stdoutFields } from '../result.js';
import type { ExecuteCodeResult } from '../types.js';
import { RemoteExecError, backendName } from './remote-folder.js';
import type { RemotePerCallInput } from './remote-per-call.js';
import { StreamChannel, type ChannelEnd } from './stream-channel.js';
import { claimSweep } from './sweep.js';

/** The variables a stream's runner gets and hands to its child: the scrubbed set worth sending, and Python's settings. */
export function streamScriptEnv(passthrough: Iterable<string>, logger?: Logger): Record<string, string> {
  return remoteEnv(buildChildEnv({ passthrough, logger, label: 'execute_code' }), { ...PYTHON_CHILD_ENV });
}

/** A one-shot run over a stream; `onStdout` sees each chunk as it arrives (the sink gets it too). */
export type StreamPerCallInput = RemotePerCallInput & {
  environment: Environment & Required<Pick<Environment, 'openStream'>>;
  onStdout?(chunk: Buffer): void;
};

/**
 * One execute_code call as a fresh script over the environment's stream: the runner makes the
 * private folder, starts the script, relays its tool calls to an RpcServer of this call and
 * its output as it is written (into the same StdoutSink and stderr capture as a local run), and
 * removes the folder. A timeout or an interrupt is a kill frame: the runner terminates the
 * script's group. Returns `{ unavailable }` when the stream cannot be used, so the caller
 * falls back to the file transport.
 */
export async function executeStreamPerCall(input: StreamPerCallInput): Promise<ExecuteCodeResult | { unavailable: string }> {
  const { config, environment, context } = input;
  const settings = config.code_execution;
  const graceMs = settings.kill_grace * 1000;
  const staging = await StagingDir.create();
  const rpc = new RpcServer({ transport: 'unix', socketPath: staging.socketPath, handler: input.gate.handle, maxConnections: settings.max_rpc_connections });
  const stdout = new StdoutSink(settings.max_stdout_bytes, settings.max_spill_bytes, { host: input.spillDir, visible: input.spillDir });
  const stderr = new OutputCapture(Math.floor(settings.max_stderr_bytes * 0.4), Math.ceil(settings.max_stderr_bytes * 0.6));
  const closeGate = input.gate.open({ allowed: input.allowed, maxCalls: settings.max_tool_calls, context });
  const release = async () => {
    const calls = closeGate();
    await rpc.close();
    await staging.remove();
    return calls;
  };
  const strict = settings.mode === 'strict';
  let channel: StreamChannel;
  try {
    await rpc.listen();
    channel = await StreamChannel.open(environment, {
      env: streamScriptEnv(input.passthrough, input.logger),
      // strict: the script runs in its private folder, whatever the environment's cwd is.
      cwd: strict ? '/' : undefined,
      setup: {
        mode: 'script',
        prefix: 'hermes-rexec',
        files: { 'hermes_tools.py': input.stub, 'script.py': input.code },
        argv: ['python3', '{dir}/script.py'],
        ...(strict ? { cwd: '{dir}' } : {}),
        env: { HERMES_RPC_TOKEN: rpc.token },
        sweep: claimSweep(environment),
        graceMs,
        maxConnections: settings.max_rpc_connections,
      },
      rpcSocketPath: staging.socketPath,
      listeners: {
        onStdout: (chunk) => {
          stdout.push(chunk);
          input.onStdout?.(chunk);
          context.onOutput?.(chunk);
        },
        onStderr: (chunk) => stderr.push(chunk),
      },
      logger: input.logger,
    });
  } catch (error) {
    await release();
    if (error instanceof RemoteExecError) {
      return { status: 'error', output: error.message, error: error.message, tool_calls_made: 0, duration_seconds: secondsSince(input.startedMs) };
    }
    return { unavailable: errorMessage(error) };
  }
  if (channel.swept > 0) input.logger.info({ swept: channel.swept }, `execute_code: removed ${channel.swept} folder(s) a stopped gateway left on the ${backendName(environment)}`);
  const ended = superviseChannel(channel, { timeoutSeconds: settings.timeout, signal: context.signal, graceMs });
  const { end, timedOut, interrupted, reason } = await ended;
  // The child and its group are gone and its output is in: the stream ends on its own (the
  // runner removes the folder, then exits); the result does not wait for the client to exit.
  void channel.close().catch((error: unknown) => input.logger.warn({ err: errorMessage(error) }, 'execute_code: closing the stream failed'));
  const callsMade = await release();
  const spillPath = await stdout.finish();
  if (end.kind === 'lost' && !timedOut && !interrupted) {
    const text = stdout.text();
    const error = `execute_code lost its stream to the ${backendName(environment)} while the script ran: ${end.detail}. The script was stopped there; run it again.`;
    return {
      status: 'error',
      output: joinOutput(text, stderr.text(), error),
      error,
      tool_calls_made: callsMade,
      duration_seconds: secondsSince(input.startedMs),
      exit_code: null,
      ...stdoutFields({ text, truncated: stdout.capture.truncated, totalBytes: stdout.capture.total, omittedBytes: stdout.capture.omitted, spillPath }),
    };
  }
  const run: ScriptRun = {
    stdout,
    stderr,
    spillPath,
    exitCode: end.kind === 'exit' ? end.code : null,
    signal: end.kind === 'exit' && isSignal(end.signal) ? end.signal : null,
    timedOut,
    interrupted,
    reason,
  };
  return scriptResult(run, { callsMade, startedMs: input.startedMs, timeout: settings.timeout });
}

/**
 * Waits for the channel's child to end; a timeout or an abort sends the kill frame, and a
 * runner that has not ended the child within the grace (plus a margin) loses its stream.
 */
export async function superviseChannel(
  channel: StreamChannel,
  limits: { timeoutSeconds: number; signal?: AbortSignal; graceMs: number },
): Promise<{ end: ChannelEnd; timedOut: boolean; interrupted: boolean; reason?: string }> {
  let backstop: Promise<void> | undefined;
  const watch = watchRun(limits, () => {
    channel.terminate();
    backstop ??= settleWithin(channel.ended, limits.graceMs + 3000).then(() => (channel.end ? undefined : channel.close()));
  });
  const end = await channel.ended;
  const { timedOut, interrupted, reason } = watch.done();
  await backstop;
  return { end, timedOut, interrupted, reason };
}

function isSignal(name: string | null): name is NodeJS.Signals {
  return name !== null && Object.hasOwn(constants.signals, name);
}
