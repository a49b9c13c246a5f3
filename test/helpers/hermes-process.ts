import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

export const builtCli = join(packageRoot(), 'dist/src/cli/main.js');

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `hermes` with `--home home` as a real process, in `cwd` (default: the home
 * folder). `npm test` builds first;
 * a missing build is an error that says so, never a skip.
 */
export function hermes(
  home: string,
  args: string[],
  options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<ProcessRun> {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run \`npm run build\` (npm test does) first`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli, '--home', home, ...args], {
      // Scripts run in the working folder: never the repository's.
      cwd: options.cwd ?? home,
      env: { ...process.env, HERMES_HOME: '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
