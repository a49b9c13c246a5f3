import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { hostSearchPath } from './child-env.js';

/** The absolute path of an executable found on PATH (or the path itself when absolute), else undefined. */
export function findExecutable(name: string, path: string | undefined = hostSearchPath()): string | undefined {
  const candidates = isAbsolute(name) ? [name] : (path ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not there; try the next folder
    }
  }
  return undefined;
}
