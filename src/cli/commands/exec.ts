import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { homeOption } from '../common.js';

interface ExecOptions {
  mode?: string;
  timeout?: string;
  maxToolCalls?: string;
  json?: boolean;
}

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

export function registerExecCommand(program: Command): void {
  program
    .command('exec')
    .argument('[file]', 'the Python script to run; - or nothing reads standard input')
    .description('run one script through execute_code with the local tools (hermes_tools over RPC)')
    .option('--mode <mode>', 'project (session folder, active venv) or strict (isolated folder)')
    .option('--timeout <seconds>', 'kill the script after this many seconds')
    .option('--max-tool-calls <n>', 'hermes_tools calls allowed')
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
      const code = await readScript(file);
      const { createCodeExecutor } = await import('../../execute-code/index.js');
      const { loadForCli } = await import('../common.js');
      const { createLogger } = await import('../../shared/logger.js');
      const loaded = loadForCli(command, {
        code_execution: { mode: options.mode as 'project' | 'strict' | undefined, timeout, max_tool_calls: maxToolCalls, session_kernels: false },
      });
      const logger = createLogger({ file: loaded.paths.logFile, level: loaded.config.logging.level });
      const executor = createCodeExecutor({ loaded, logger, home: homeOption(command) });
      const controller = new AbortController();
      const onSigint = () => controller.abort('interrupted by user');
      process.once('SIGINT', onSigint);
      try {
        const result = await executor.execute({ code, sessionId: 'cli', signal: controller.signal });
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
      }
    });
}
