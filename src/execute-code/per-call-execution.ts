import type { HostProcessEnvironment, SpillFolder } from '../environments/types.js';
import type { HermesConfig } from '../config/schema.js';
import type { Logger } from '../shared/logger.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';
import { CallGate } from './call-gate.js';
import type { CellRequest } from './call-path.js';
import type { ExecuteCodeResult } from './types.js';
import { stageLaunch, type Staged } from './launch.js';
import { runScriptProcess, type ScriptRun } from './per-call.js';
import { interruptedNotice, scriptTimedOutNotice } from '../shared/notices.js';
import { joinOutput, lastErrorLine, secondsSince, stdoutFields } from './result.js';

export interface PerCallInput {
  code: string;
  stub: string;
  allowed: ReadonlySet<string>;
  context: ToolContext;
  environment: HostProcessEnvironment;
  gate: CallGate;
  config: HermesConfig;
  passthrough: Iterable<string>;
  spill: SpillFolder;
  logger: Logger;
  startedMs: number;
}

/** What every one-shot script takes from its call, on any path: all but where it runs and where a cut stdout goes. */
export function oneShotInput(
  request: CellRequest,
  deps: { registry: ToolRegistry; config: HermesConfig; logger: Logger },
): Omit<PerCallInput, 'environment' | 'spill'> {
  return {
    code: request.code,
    stub: request.stub,
    allowed: request.allowed,
    context: request.context,
    gate: new CallGate(deps.registry),
    config: deps.config,
    passthrough: request.passthrough,
    logger: deps.logger.child({ session: request.owner }),
    startedMs: request.startedMs,
  };
}

/** One execute_code call as a fresh script: staging folder, RPC server, child, cleanup. */
export async function executePerCall(input: PerCallInput): Promise<ExecuteCodeResult> {
  const { config, environment, context } = input;
  const settings = config.code_execution;
  const closeGate = input.gate.open({ allowed: input.allowed, maxCalls: settings.max_tool_calls, context });
  let callsMade = 0;
  let run: ScriptRun;
  let staged: Staged | undefined;
  try {
    staged = await stageLaunch({
      environment,
      settings,
      handler: input.gate.handle,
      files: { 'hermes_tools.py': input.stub, 'script.py': input.code },
      argv: (python, staging) => [python, staging.file('script.py')],
      passthrough: input.passthrough,
      logger: input.logger,
    });
    run = await runScriptProcess({
      command: staged.command,
      timeoutSeconds: settings.timeout,
      graceMs: settings.kill_grace * 1000,
      signal: context.signal,
      maxStdoutBytes: settings.max_stdout_bytes,
      maxStderrBytes: settings.max_stderr_bytes,
      maxSpillBytes: settings.max_spill_bytes,
      spill: input.spill,
      onStdout: context.onOutput,
    });
  } finally {
    callsMade = closeGate();
    await staged?.release();
  }
  return scriptResult(run, { callsMade, startedMs: input.startedMs, timeout: settings.timeout });
}

/** Turns a finished script process into the execute_code result. */
export function scriptResult(
  run: ScriptRun,
  facts: { callsMade: number; startedMs: number; timeout: number },
): ExecuteCodeResult {
  const stdout = run.stdout.text();
  const stderr = run.stderr.text();
  const base = {
    tool_calls_made: facts.callsMade,
    duration_seconds: secondsSince(facts.startedMs),
    exit_code: run.exitCode,
    ...stdoutFields({
      text: stdout,
      truncated: run.stdout.capture.truncated,
      totalBytes: run.stdout.capture.total,
      omittedBytes: run.stdout.capture.omitted,
      spillPath: run.spillPath,
    }),
  };
  if (run.spawnError) {
    const error = `execute_code could not start the Python interpreter: ${run.spawnError}`;
    return { status: 'error', output: error, error, ...base };
  }
  if (run.timedOut) {
    const message = scriptTimedOutNotice(facts.timeout);
    return { status: 'timeout', output: joinOutput(stdout, message), error: message, ...base };
  }
  if (run.interrupted) {
    const notice = interruptedNotice(run.reason);
    return { status: 'interrupted', output: joinOutput(stdout, notice), error: notice, ...base };
  }
  if (run.exitCode === 0) return { status: 'success', output: stdout, ...base };
  const how = run.signal ? `was killed by ${run.signal}` : `exited with code ${run.exitCode}`;
  const line = lastErrorLine(stderr);
  const error = line ? `Script ${how}: ${line}` : `Script ${how}.`;
  return { status: 'error', output: joinOutput(stdout, stderr), error, ...base };
}
