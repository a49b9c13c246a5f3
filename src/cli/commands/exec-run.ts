// First: zod's schemas are made without their compiled fast paths (see exec-jitless.ts).
import './exec-jitless.js';
import type { Command } from 'commander';
import { createCodeExecutor } from '../../execute-code/index.js';
import { BackendError, createEnvironmentManager, type Environment } from '../../environments/index.js';
import type { LoadedConfig } from '../../config/index.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { InterruptReason } from '../../shared/notices.js';
import type { ToolContext } from '../../tools/types.js';
import { homeOption, loadForCli } from '../common.js';

/*
 * What `hermes exec` runs once its flags are checked: config, backend, execute_code. This is
 * the entry of dist/exec-bundle (scripts/bundle-exec.mjs), which exec.ts loads when it is
 * built and up to date, else it imports this module.
 */

export interface ExecRun {
  code: string;
  mode?: 'project' | 'strict';
  timeout?: number;
  maxToolCalls?: number;
  backend?: string;
  json?: boolean;
}

/** The session id `hermes exec` runs under (its sandbox workspace is HERMES_HOME/sandboxes/cli). */
const SESSION = 'cli';

/**
 * Runs `step` (loading the backend, creating its environment); with `--backend`, a backend
 * error names the flag the user typed rather than the config key.
 */
async function naming<T>(flag: boolean, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (flag && error instanceof BackendError) throw new Error(`--backend: ${error.message.replace(/^terminal\.backend: /, '')}`, { cause: error });
    throw error;
  }
}

/** Runs the script, prints its output (or the result as JSON) and sets the exit code. */
export async function runExec(command: Command, run: ExecRun): Promise<void> {
  const configured = loadForCli(command, {
    code_execution: { mode: run.mode, timeout: run.timeout, max_tool_calls: run.maxToolCalls, session_kernels: false },
    ...(run.backend !== undefined ? { terminal: { backend: run.backend } } : {}),
  });
  // As `python script.py` does, a script run by hand on local starts in the current folder; the
  // agent's own default (HERMES_HOME/workspace) is for the gateway and `hermes chat`.
  const inHere = configured.config.terminal.cwd === null && configured.config.terminal.backend === 'local';
  const loaded: LoadedConfig = inHere
    ? { ...configured, config: { ...configured.config, terminal: { ...configured.config.terminal, cwd: process.cwd() } } }
    : configured;
  // Written line by line: a one-shot command has nothing to flush (and fsync) at exit.
  const logger = createLogger({ file: loaded.paths.logFile, level: loaded.config.logging.level, sync: true });
  const flag = run.backend !== undefined;
  // The configured backend as the agent builds it: plugins loaded, every provider's stripEnvKeys known.
  const { manager } = await naming(flag, () => createEnvironmentManager({ config: loaded.config, paths: loaded.paths, logger }));
  const executor = createCodeExecutor({ loaded, logger, home: homeOption(command) });
  const controller = new AbortController();
  const onSigint = () => controller.abort(InterruptReason.ctrlC);
  process.once('SIGINT', onSigint);
  try {
    const environment = await naming(flag, () => manager.environmentFor(SESSION));
    const context = toolContext(loaded, environment, controller.signal, logger);
    const result = await executor.execute({ code: run.code, sessionId: SESSION, signal: controller.signal, context });
    if (run.json) process.stdout.write(JSON.stringify(result) + '\n');
    else {
      process.stdout.write(result.output);
      if (result.output && !result.output.endsWith('\n')) process.stdout.write('\n');
      if (result.warning) process.stderr.write(`warning: ${result.warning}\n`);
    }
    process.exitCode = result.status === 'success' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    await executor.close();
    await manager.closeAll();
  }
}

/** What the script's tool calls run with: the backend's environment, as in an agent turn (no one to approve risky commands). */
function toolContext(loaded: LoadedConfig, environment: Environment, signal: AbortSignal, logger: Logger): ToolContext {
  return {
    sessionId: SESSION,
    signal,
    environment,
    logger: logger.child({ session: SESSION }),
    config: loaded.config,
    paths: loaded.paths,
    passthrough: new Set(),
  };
}
