import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { findExecutable } from '../which.js';
import { inside, realOrSelf } from './system-view.js';

/** What the sandbox needs to run a Python that lives outside the system folders (a venv, pyenv, conda). */
export interface InterpreterView {
  /** Prefixes to bind read-only: the interpreter's `sys.prefix` and `sys.base_prefix`. */
  readOnly: string[];
  /** Folders to put first on PATH, so `python3` inside finds the real interpreter and not a shim. */
  pathDirs: string[];
}

const PROBE = 'import os, sys; print(os.path.realpath(sys.executable)); print(sys.prefix); print(sys.base_prefix)';
const cache = new Map<string, { executable: string; prefixes: string[] } | null>();

/** The real executable and prefixes of `python` (a name on PATH or a path), asked of it once. */
function describe(python: string, path: string | undefined): { executable: string; prefixes: string[] } | null {
  const found = findExecutable(python, path);
  if (!found) return null;
  const known = cache.get(found);
  if (known !== undefined) return known;
  const run = spawnSync(found, ['-c', PROBE], { encoding: 'utf8', timeout: 10_000, env: { PATH: path ?? '' } });
  const lines = run.status === 0 ? run.stdout.trim().split('\n') : [];
  const answer = lines.length === 3 ? { executable: lines[0], prefixes: [...new Set([lines[1], lines[2]].map(realOrSelf))] } : null;
  cache.set(found, answer);
  return answer;
}

/**
 * Mounts for the interpreters a sandboxed script may use (`code_execution.python`, an active
 * venv or conda environment). Those under the system folders need nothing; others get their
 * prefixes bound read-only and their real bin folder first on PATH (a pyenv shim would need
 * the whole of ~/.pyenv, which the sandbox does not show).
 */
export function interpreterView(pythons: readonly string[], path: string | undefined): InterpreterView {
  const readOnly = new Set<string>();
  const pathDirs = new Set<string>();
  for (const python of pythons) {
    const found = describe(python, path);
    if (!found) continue;
    const bin = dirname(found.executable);
    if (!inside('/usr', bin)) pathDirs.add(bin);
    for (const prefix of found.prefixes) if (!inside('/usr', prefix) && prefix !== '/') readOnly.add(prefix);
  }
  return { readOnly: [...readOnly], pathDirs: [...pathDirs] };
}
