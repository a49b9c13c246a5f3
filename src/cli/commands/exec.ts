import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import type { LoadedConfig } from '../../config/index.js';
import type { Environment } from '../../environments/index.js';
import type { Logger } from '../../shared/logger.js';
import type { ToolContext } from '../../tools/types.js';

/*
 * Only types at the top: `hermes exec --help` loads this file and commander, nothing else
 * (common.js pulls in the config, zod and yaml). The action imports what a run needs.
 */

interface ExecOptions {
  mode?: string;
  timeout?: string;
  maxToolCalls?: string;
  backend?: string;
  json?: boolean;
}

/** The session id `hermes exec` runs under (its sandbox workspace is HERMES_HOME/sandboxes/cli). */
const SESSION = 'cli';

function positiveNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag}: expected a positive number, got "${raw}"`);
  return value;
}

async function readScript(file: string | undefined): Promise<string> {
  if (file && file !== '-') return readFile(file, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs `step` (loading the backend, creating its environment); with `--backend`, a backend
 * error names the flag the user typed rather than the config key.
 */
async function naming<T>(flag: boolean, step: () => Promise<T>): Promise<T> {
  const { BackendError } = await import('../../environments/index.js');
  try {
    return await step();
  } catch (error) {
    if (flag && error instanceof BackendError) throw new Error(`--backend: ${error.message.replace(/^terminal\.backend: /, '')}`, { cause: error });
    throw error;
  }
}

export function registerExecCommand(program: Command): void {
  program
    .command('exec')
    .argument('[file]', 'the Python script to run; - or nothing reads standard input')
    .description('run one script through execute_code on the configured terminal backend (hermes_tools over RPC)')
    .option('--mode <mode>', 'project (session folder, active venv) or strict (isolated folder)')
    .option('--timeout <seconds>', 'kill the script after this many seconds')
    .option('--max-tool-calls <n>', 'hermes_tools calls allowed')
    .option('--backend <name>', 'run on this terminal backend instead of terminal.backend (a built-in one or an enabled plugin\'s)')
    .option('--json', 'print the whole result object as one JSON document')
    .action(async (file: string | undefined, options: ExecOptions, command: Command) => {
      if (options.mode !== undefined && options.mode !== 'project' && options.mode !== 'strict') {
        throw new Error(`--mode: expected project or strict, got "${options.mode}"`);
      }
      const timeout = positiveNumber('--timeout', options.timeout);
      const maxToolCalls = positiveNumber('--max-tool-calls', options.maxToolCalls);
      if (maxToolCalls !== undefined && !Number.isInteger(maxToolCalls)) {
        throw new Error(`--max-tool-calls: expected a whole number, got "${options.maxToolCalls}"`);
      }
      if (options.backend !== undefined && options.backend.trim() === '') throw new Error('--backend: expected a backend name, got ""');
      const code = await readScript(file);
      const { createCodeExecutor } = await import('../../execute-code/index.js');
      const { loadForCli, homeOption } = await import('../common.js');
      const { InterruptReason } = await import('../../shared/notices.js');
      const { createLogger } = await import('../../shared/logger.js');
      const loaded = loadForCli(command, {
        code_execution: { mode: options.mode as 'project' | 'strict' | undefined, timeout, max_tool_calls: maxToolCalls, session_kernels: false },
        ...(options.backend !== undefined ? { terminal: { backend: options.backend } } : {}),
      });
      const logger = createLogger({ file: loaded.paths.logFile, level: loaded.config.logging.level });
      const { createEnvironmentManager } = await import('../../environments/index.js');
      const flag = options.backend !== undefined;
      // The configured backend as the agent builds it: plugins loaded, every provider's stripEnvKeys known.
      const { manager } = await naming(flag, () => createEnvironmentManager({ config: loaded.config, paths: loaded.paths, logger }));
      const executor = createCodeExecutor({ loaded, logger, home: homeOption(command) });
      const controller = new AbortController();
      const onSigint = () => controller.abort(InterruptReason.ctrlC);
      process.once('SIGINT', onSigint);
      try {
        const environment = await naming(flag, () => manager.environmentFor(SESSION));
        const context = toolContext(loaded, environment, controller.signal, logger);
        const result = await executor.execute({ code, sessionId: SESSION, signal: controller.signal, context });
        if (options.json) process.stdout.write(JSON.stringify(result) + '\n');
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
    });
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
