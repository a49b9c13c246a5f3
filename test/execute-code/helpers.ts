import { mkdtempSync, readFileSync } from 'node:fs';
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

/** True when a process with this pid exists (zombies count as gone). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
