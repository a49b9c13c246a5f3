import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';
import { waitForPid } from './processes.js';

export const builtCli = join(packageRoot(), 'dist/src/cli/main.js');

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `hermes` with `--home home` as a real process, in `cwd` (default: the home
 * folder), with `baseEnv` (default: this process's environment) and `env` over it. `npm test` builds first;
 * a missing build is an error that says so, never a skip.
 */
export function hermes(
  home: string,
  args: string[],
  options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string; baseEnv?: NodeJS.ProcessEnv } = {},
): Promise<ProcessRun> {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run \`npm run build\` (npm test does) first`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [builtCli, '--home', home, ...args], {
      // Scripts run in the working folder: never the repository's.
      cwd: options.cwd ?? home,
      // `baseEnv` (default: this process's) with HERMES_HOME emptied, then `env` laid over.
      env: { ...(options.baseEnv ?? process.env), HERMES_HOME: '', ...options.env },
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

/** What `hermesExecCtrlC` saw: the exit code, the JSON result printed, and the pid of the `sleep` the script started. */
export interface CtrlCRun {
  code: number | null;
  result: { status: string; output: string };
  sleeper: number;
}

/**
 * Runs the built `hermes exec - --json` in `home` on a script that starts `sleep` (its pid in
 * `home/sleep.pid`) and then sleeps; once the pid is there, sends SIGINT as Ctrl-C does.
 */
export async function hermesExecCtrlC(home: string, sleepSeconds: number): Promise<CtrlCRun> {
  if (!existsSync(builtCli)) throw new Error(`${builtCli} is missing: run npm run build first`);
  const pidFile = join(home, 'sleep.pid');
  const child = spawn(process.execPath, [builtCli, '--home', home, 'exec', '-', '--json'], { cwd: home, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdin.end(`import subprocess, time\np = subprocess.Popen(["sleep", "${sleepSeconds}"])\nopen(${JSON.stringify(pidFile)}, "w").write(str(p.pid))\ntime.sleep(${sleepSeconds})\n`);
  const sleeper = await waitForPid(pidFile, 30_000);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, result: JSON.parse(stdout) as CtrlCRun['result'], sleeper };
}
