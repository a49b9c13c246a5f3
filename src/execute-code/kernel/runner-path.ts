import { join } from 'node:path';
import { packageRoot } from '../../shared/package-root.js';

/** Absolute path of kernel_runner.py, from the sources and from the built package alike. */
export function kernelRunnerPath(): string {
  return join(packageRoot(), 'src', 'execute-code', 'python', 'kernel_runner.py');
}

/** The argv that starts a kernel with `python` (a path or a name on PATH). */
export function kernelArgv(python: string): string[] {
  return [python, kernelRunnerPath()];
}
