import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * Call at a test file's (or describe's) top level: returns a maker of fresh temp folders
 * (`mkdtemp` with `prefix`); every folder it made is removed after each test.
 */
export function tempFoldersPerTest(): (prefix: string) => string {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  return (prefix) => {
    const folder = mkdtempSync(join(tmpdir(), prefix));
    folders.push(folder);
    return folder;
  };
}
