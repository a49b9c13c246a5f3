import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCodeExecutor, type CodeExecutorOptions } from '../../src/execute-code/index.js';
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

/** True while the process runs (zombies count as gone). */
export { processAlive as alive } from '../../src/environments/index.js';
