import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HostCommand } from '../../../src/environments/types.js';
export { processAlive, waitGone } from '../../helpers/processes.js';
import { KernelProcess, kernelArgv, type KernelStartOptions, type RunCellOptions } from '../../../src/execute-code/kernel/index.js';

/**
 * The real interpreter behind `python3` (a pyenv shim costs a bash start per kernel), or
 * undefined when there is none (tests then skip outside CI; under CI=true they run and fail).
 */
export const python: string | undefined = (() => {
  const probe = spawnSync(process.env.HERMES_TEST_PYTHON ?? 'python3', ['-c', 'import sys; assert sys.version_info >= (3, 8); print(sys.executable)'], {
    encoding: 'utf8',
  });
  return probe.status === 0 ? probe.stdout.trim() : undefined;
})();

export const runKernelTests = python !== undefined || process.env.CI === 'true';
if (!runKernelTests) console.log('Skipping session kernel tests: no python3 >= 3.8 on PATH (set HERMES_TEST_PYTHON).');

export function kernelCommand(env: Record<string, string> = {}): HostCommand {
  const [file, ...args] = kernelArgv(python ?? 'python3');
  return { file, args, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, cwd: process.cwd() };
}

export function startKernel(options: KernelStartOptions = {}, env: Record<string, string> = {}): Promise<KernelProcess> {
  return KernelProcess.start(kernelCommand(env), options);
}

export interface CellRun {
  stdout: string;
  stderr: string;
}

/** Options for runCell that collect the output into `run`. */
export function collect(run: CellRun, extra: Partial<RunCellOptions> = {}): RunCellOptions {
  return {
    timeoutMs: 20_000,
    onStdout: (chunk) => (run.stdout += chunk.toString('utf8')),
    onStderr: (chunk) => (run.stderr += chunk.toString('utf8')),
    ...extra,
  };
}

/** Runs a cell and returns its outcome with its output. */
export async function cell(kernel: KernelProcess, code: string, extra: Partial<RunCellOptions> = {}) {
  const run: CellRun = { stdout: '', stderr: '' };
  const outcome = await kernel.runCell(code, collect(run, extra));
  return { outcome, ...run };
}

/** Polls until `check` is true or `ms` passed; returns the last value. */
export async function eventually(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}
