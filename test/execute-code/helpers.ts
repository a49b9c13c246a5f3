import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createCodeExecutor, type CodeExecutorOptions, type DefaultCodeExecutor } from '../../src/execute-code/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';

/** A fresh HERMES_HOME and working folder for one test. */
export function tempDirs(): { home: string; cwd: string } {
  return {
    home: mkdtempSync(join(tmpdir(), 'hermes-home-')),
    cwd: mkdtempSync(join(tmpdir(), 'hermes-cwd-')),
  };
}

/** An executor on a temp home, per-call unless the test asks for kernels. */
export function perCallExecutor(config: ConfigOverrides = {}, options: Partial<CodeExecutorOptions> = {}) {
  const dirs = tempDirs();
  const executor = createCodeExecutor({
    home: dirs.home,
    cwd: dirs.cwd,
    ...options,
    config: { ...config, code_execution: { session_kernels: false, ...config.code_execution } },
  });
  return { executor, ...dirs };
}

/** The two ways a script runs, for describe.each / it.each over both. */
export const EXECUTION_MODES = [
  { name: 'one-shot script', kernels: false },
  { name: 'session kernel', kernels: true },
] as const;

/**
 * Call at a test file's top level. The function it returns makes an executor on fresh temp
 * folders with a 30 s timeout (in `cwd` when given, none when ''), closed after the file's tests.
 */
export function executorsForFile(): (kernels: boolean, config?: ConfigOverrides, cwd?: string) => DefaultCodeExecutor {
  const made: DefaultCodeExecutor[] = [];
  afterAll(() => Promise.all(made.map((executor) => executor.close())));
  return (kernels, config = {}, cwd) => {
    const dirs = tempDirs();
    const executor = createCodeExecutor({
      home: dirs.home,
      cwd: cwd === undefined ? dirs.cwd : cwd || undefined,
      config: { ...config, code_execution: { session_kernels: kernels, timeout: 30, ...config.code_execution } },
    });
    made.push(executor);
    return executor;
  };
}

/** True while the process runs (zombies count as gone). */
export { processAlive as alive } from '../../src/environments/index.js';
