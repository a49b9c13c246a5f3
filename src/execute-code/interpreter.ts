import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { hostPythonPrefixes } from '../environments/child-env.js';

const versionCache = new Map<string, { mtimeMs: number; ok: boolean }>();

/** True when `python` runs and is Python ≥ 3.8. Cached by path and modification time. */
async function usablePython(python: string): Promise<boolean> {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(python).mtimeMs;
  } catch {
    return false;
  }
  const cached = versionCache.get(python);
  if (cached && cached.mtimeMs === mtimeMs) return cached.ok;
  const ok = await new Promise<boolean>((resolve) => {
    execFile(python, ['-c', 'import sys; print(sys.version_info >= (3, 8))'], { timeout: 10_000 }, (error, stdout) =>
      resolve(!error && stdout.trim() === 'True'),
    );
  });
  versionCache.set(python, { mtimeMs, ok });
  return ok;
}

/**
 * The interpreter for a script. `project` mode prefers the active virtualenv or conda
 * environment when it holds a Python ≥ 3.8; `strict` always uses the default interpreter.
 */
export async function resolveInterpreter(
  mode: 'project' | 'strict',
  fallback: string,
  prefixes: readonly string[] = hostPythonPrefixes(),
): Promise<string> {
  if (mode === 'project') {
    for (const prefix of prefixes) {
      const candidate = join(prefix, 'bin', 'python');
      if (await usablePython(candidate)) return candidate;
    }
  }
  return fallback;
}
