import { randomBytes } from 'node:crypto';
import type { Environment } from '../../environments/types.js';
import { buildChildEnv } from '../../environments/child-env.js';
import { remoteEnv } from '../../environments/remote-env.js';
import { abortReason, interruptedNotice, scriptTimedOutNotice } from '../../shared/notices.js';
import { OutputCapture } from '../../shared/output-capture.js';
import { errorMessage } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PerCallInput } from '../per-call-execution.js';
import type { CallGate } from '../call-gate.js';
import { StdoutSink } from '../stdout-sink.js';
import { PYTHON_CHILD_ENV } from '../script-env.js';
import { joinOutput, lastErrorLine, secondsSince, stdoutFields } from '../result.js';
import type { ExecuteCodeResult } from '../types.js';
import { FileRpcPoller } from './file-rpc.js';
import { RpcServer } from '../rpc/server.js';
import { StagingDir } from '../staging.js';
import { claimSweep } from './sweep.js';
import { RemoteExecError, createRemoteFolder, fileTransportStub, quote, readRemoteFile, removeRemoteFolder } from './remote-folder.js';

/** The same inputs as a local one-shot script, on any environment; the cut stdout is kept on the gateway's host. */
export type RemotePerCallInput = Omit<PerCallInput, 'environment' | 'spill'> & { environment: Environment; spillDir: string };

/** The variables of a remote script: the scrubbed set worth sending, and where its folder is. */
export function remoteScriptEnv(dir: string, passthrough: Iterable<string>, logger?: Logger): Record<string, string> {
  return remoteEnv(buildChildEnv({ passthrough, logger, label: 'execute_code' }), {
    HERMES_RPC_DIR: dir,
    PYTHONPATH: dir,
    ...PYTHON_CHILD_ENV,
  });
}

/**
 * One execute_code call as a fresh script on a remote backend: a private folder there with
 * the script, the file-transport stub and the token; the script runs through the
 * environment (so its timeout and interrupt kill the remote group), its tool calls are
 * served by polling, its stdout and stderr are fetched afterwards, and the folder removed.
 */
export async function executeRemotePerCall(input: RemotePerCallInput): Promise<ExecuteCodeResult> {
  const { config, environment, context } = input;
  const settings = config.code_execution;
  const maxOutput = config.terminal.max_output_bytes;
  const token = randomBytes(24).toString('hex');
  let dir: string;
  try {
    dir = await createRemoteFolder(environment, {
      'hermes_tools.py': fileTransportStub(input.stub),
      'script.py': input.code,
      token,
      // Made here, under umask 077, so the redirections below keep them 0600.
      stdout: '',
      stderr: '',
    }, 'hermes-rexec', { sweep: claimSweep(environment) });
  } catch (error) {
    const message = error instanceof RemoteExecError ? error.message : `execute_code could not prepare the remote backend: ${errorMessage(error)}`;
    return { status: 'error', output: message, error: message, tool_calls_made: 0, duration_seconds: secondsSince(input.startedMs) };
  }
  const closeGate = input.gate.open({ allowed: input.allowed, maxCalls: settings.max_tool_calls, context });
  const direct = config.terminal.ssh.direct_channel ? await openDirectChannel(environment, dir, input.gate, settings.max_rpc_connections) : undefined;
  const poller = new FileRpcPoller({
    environment,
    dir,
    token,
    handler: input.gate.handle,
    maxOutputBytes: maxOutput,
    doneTest: '[ -e ../done ]',
    logger: input.logger,
  });
  let callsMade = 0;
  try {
    if (!direct) poller.start();
    const q = quote(dir);
    const run = await environment.execute(
      `${lockedPython(`${dir}/.lock`)} ${q}/script.py > ${q}/stdout 2> ${q}/stderr; rc=$?; : > ${q}/done; exit $rc`,
      {
        cwd: settings.mode === 'strict' ? dir : environment.cwd,
        env: { ...remoteScriptEnv(dir, input.passthrough, input.logger), ...direct?.env },
        timeout: settings.timeout,
        signal: context.signal,
      },
    );
    await poller.stop();
    callsMade = closeGate();
    const streams = await fetchStreams(environment, dir, { ...settings, maxOutput, spillDir: input.spillDir });
    // The command was interrupted by this call's own signal: its reason is read there, as a value.
    const reason = run.interrupted ? abortReason(context.signal) : undefined;
    return remoteScriptResult(run, streams, { callsMade, startedMs: input.startedMs, timeout: settings.timeout, reason });
  } finally {
    callsMade = closeGate();
    await poller.stop();
    await direct?.close();
    if (!(await removeRemoteFolder(environment, dir).catch(() => false))) {
      input.logger.warn({ dir }, `execute_code: could not remove ${dir} on the remote backend`);
    }
  }
}

/**
 * `python3` that holds an exclusive flock on `lockPath` for the script's life (a first
 * interpreter takes it, then execs the script's; the descriptor stays open across exec), so
 * the sweep of folders a killed gateway left never takes a running script's folder.
 */
function lockedPython(lockPath: string): string {
  const take = 'import fcntl,os,sys;f=os.open(sys.argv[1],os.O_RDWR|os.O_CREAT,0o600);fcntl.flock(f,fcntl.LOCK_EX);os.set_inheritable(f,True);os.execvp("python3",["python3"]+sys.argv[2:])';
  return `python3 -I -c ${quote(take)} ${quote(lockPath)}`;
}

/** An environment that can forward this host's Unix socket to a path on the backend (SSH). */
interface SocketForwarding {
  forwardUnixSocket(remotePath: string, localPath: string): Promise<(() => Promise<void>) | undefined>;
}

/**
 * The direct channel: the gateway's RPC server on a local socket, forwarded into the remote
 * folder, so the stub keeps its socket transport. Undefined when the environment cannot
 * forward (then the file transport serves the calls).
 */
async function openDirectChannel(
  environment: Environment,
  dir: string,
  gate: CallGate,
  maxConnections: number,
): Promise<{ env: Record<string, string>; close(): Promise<void> } | undefined> {
  const forwarding = environment as Partial<SocketForwarding>;
  if (typeof forwarding.forwardUnixSocket !== 'function') return undefined;
  const staging = await StagingDir.create();
  const rpc = new RpcServer({ transport: 'unix', socketPath: staging.socketPath, handler: gate.handle, maxConnections });
  const release = async () => {
    await rpc.close();
    await staging.remove();
  };
  try {
    await rpc.listen();
    const remoteSocket = `${dir}/rpc.sock`;
    const cancel = await forwarding.forwardUnixSocket.call(environment, remoteSocket, staging.socketPath);
    if (!cancel) {
      await release();
      return undefined;
    }
    return {
      // Sent on stdin with the other variables, never on a command line.
      env: { HERMES_RPC_SOCKET: remoteSocket, HERMES_RPC_TOKEN: rpc.token },
      close: async () => {
        await cancel();
        await release();
      },
    };
  } catch {
    await release();
    return undefined;
  }
}

interface Streams {
  stdout: StdoutSink;
  stderr: string;
  spillPath?: string;
}

/** Reads the script's stdout (up to the spill cap) and the tail of its stderr. */
async function fetchStreams(
  environment: Environment,
  dir: string,
  limits: { max_stdout_bytes: number; max_stderr_bytes: number; max_spill_bytes: number; maxOutput: number; spillDir: string },
): Promise<Streams> {
  const sizes = await environment.execute(`wc -c < ${quote(dir)}/stdout; wc -c < ${quote(dir)}/stderr`, { timeout: 60 });
  const [outSize = 0, errSize = 0] = sizes.output.trim().split(/\s+/).map(Number);
  const stdout = new StdoutSink(limits.max_stdout_bytes, limits.max_spill_bytes, { host: limits.spillDir, visible: limits.spillDir });
  const wanted = Math.min(outSize, limits.max_spill_bytes);
  if (wanted > 0) stdout.push(await readRemoteFile(environment, `${dir}/stdout`, 0, wanted, limits.maxOutput));
  // The count past the spill cap is still reported: the bytes were written.
  if (outSize > wanted) stdout.capture.total += outSize - wanted;
  const keep = Math.min(errSize, limits.max_stderr_bytes);
  const stderr = new OutputCapture(Math.floor(limits.max_stderr_bytes * 0.4), Math.ceil(limits.max_stderr_bytes * 0.6));
  if (keep > 0) stderr.push(await readRemoteFile(environment, `${dir}/stderr`, errSize - keep, keep, limits.maxOutput));
  const spillPath = await stdout.finish();
  return { stdout, stderr: stderr.text(), spillPath };
}

/** The execute_code result of a remote script, shaped like a local one (scriptResult). */
export function remoteScriptResult(
  run: { exit_code: number; timed_out?: boolean; interrupted?: boolean; output: string },
  streams: Streams,
  facts: { callsMade: number; startedMs: number; timeout: number; reason?: string },
): ExecuteCodeResult {
  const stdout = streams.stdout.text();
  const base = {
    tool_calls_made: facts.callsMade,
    duration_seconds: secondsSince(facts.startedMs),
    exit_code: run.timed_out || run.interrupted ? null : run.exit_code,
    ...stdoutFields({ text: stdout, truncated: streams.stdout.capture.truncated, totalBytes: streams.stdout.capture.total, omittedBytes: streams.stdout.capture.omitted, spillPath: streams.spillPath }),
  };
  if (run.timed_out) {
    const message = scriptTimedOutNotice(facts.timeout);
    return { status: 'timeout', output: joinOutput(stdout, message), error: message, ...base };
  }
  if (run.interrupted) {
    const notice = interruptedNotice(facts.reason);
    return { status: 'interrupted', output: joinOutput(stdout, notice), error: notice, ...base };
  }
  if (run.exit_code === 0) return { status: 'success', output: stdout, ...base };
  const how = run.exit_code > 128 && run.exit_code < 160 ? `was killed by signal ${run.exit_code - 128}` : `exited with code ${run.exit_code}`;
  const line = lastErrorLine(streams.stderr) ?? lastErrorLine(run.output);
  const error = line ? `Script ${how}: ${line}` : `Script ${how}.`;
  return { status: 'error', output: joinOutput(stdout, streams.stderr, run.output.trim()), error, ...base };
}
