import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';

/*
 * Only types at the top: `hermes exec --help` loads this file and commander, nothing else.
 * The action checks the flags, reads the script, then loads exec-run.ts (config, backend,
 * execute_code) from dist/exec-bundle when it is built (exec-bundle.ts), else its modules.
 */

interface ExecOptions {
  command?: string;
  mode?: string;
  timeout?: string;
  maxToolCalls?: string;
  backend?: string;
  json?: boolean;
}

function positiveNumber(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag}: expected a positive number, got "${raw}"`);
  return value;
}

function modeOf(raw: string | undefined): 'project' | 'strict' | undefined {
  if (raw === undefined || raw === 'project' || raw === 'strict') return raw;
  throw new Error(`--mode: expected project or strict, got "${raw}"`);
}

async function readScript(file: string | undefined): Promise<string> {
  if (file && file !== '-') {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        throw new Error(`hermes exec: no file named ${JSON.stringify(file)}; to run code given on the command line, use -c as with Python: hermes exec -c ${shellQuote(file)}`);
      }
      if (code === 'EISDIR') throw new Error(`hermes exec: ${file} is a folder, not a Python script`);
      throw new Error(`hermes exec: cannot read the script ${file}: ${(error as Error).message}`);
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The text quoted for a POSIX shell, for a command line to copy. */
function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

export function registerExecCommand(program: Command): void {
  program
    .command('exec')
    .argument('[file]', 'the Python script to run; - or nothing reads standard input')
    .option('-c, --command <code>', 'run this code instead of a file, as python -c does')
    .description('run one script through execute_code on the configured terminal backend (hermes_tools over RPC)')
    .option('--mode <mode>', 'project (session folder, active venv) or strict (isolated folder)')
    .option('--timeout <seconds>', 'kill the script after this many seconds')
    .option('--max-tool-calls <n>', 'hermes_tools calls allowed')
    .option('--backend <name>', 'run on this terminal backend instead of terminal.backend (a built-in one or an enabled plugin\'s)')
    .option('--json', 'print the whole result object as one JSON document')
    .action(async (file: string | undefined, options: ExecOptions, command: Command) => {
      const mode = modeOf(options.mode);
      const timeout = positiveNumber('--timeout', options.timeout);
      const maxToolCalls = positiveNumber('--max-tool-calls', options.maxToolCalls);
      if (maxToolCalls !== undefined && !Number.isInteger(maxToolCalls)) {
        throw new Error(`--max-tool-calls: expected a whole number, got "${options.maxToolCalls}"`);
      }
      if (options.backend !== undefined && options.backend.trim() === '') throw new Error('--backend: expected a backend name, got ""');
      if (options.command !== undefined && file !== undefined) {
        throw new Error(`hermes exec: give either -c CODE or a file (${JSON.stringify(file)}), not both`);
      }
      const code = options.command ?? (await readScript(file));
      const [{ loadExecRunner }, { readEnvironment }] = await Promise.all([import('../exec-bundle.js'), import('../../config/environment.js')]);
      const { runExec } = await loadExecRunner({ env: readEnvironment() });
      await runExec(command, { code, mode, timeout, maxToolCalls, backend: options.backend, json: options.json });
    });
}
