import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Spill files older than this are removed. */
export const SPILL_MAX_AGE_MS = 24 * 3600 * 1000;
/** Past this total the oldest spill files are removed, whatever their age. */
export const SPILL_MAX_TOTAL_BYTES = 200 * 1024 * 1024;

const running = new Set<string>();

/**
 * Keeps a spill folder bounded: files older than a day go, then the oldest until the rest
 * fit in 200 MB. `keep` (the file being written) is never removed. Runs in the background,
 * one pass per folder at a time; a file another pass removed first is no error.
 */
export function pruneSpills(folder: string, keep: string, now = Date.now()): Promise<void> {
  if (running.has(folder)) return Promise.resolve();
  running.add(folder);
  return prune(folder, keep, now).catch(() => undefined).finally(() => running.delete(folder));
}

async function prune(folder: string, keep: string, now: number): Promise<void> {
  const files: { path: string; size: number; mtimeMs: number }[] = [];
  for (const name of await readdir(folder)) {
    if (name === keep || !name.startsWith('stdout-')) continue;
    const path = join(folder, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) files.push({ path, size: info.size, mtimeMs: info.mtimeMs });
  }
  files.sort((a, b) => a.mtimeMs - b.mtimeMs);
  let total = files.reduce((sum, file) => sum + file.size, 0);
  for (const file of files) {
    if (now - file.mtimeMs <= SPILL_MAX_AGE_MS && total <= SPILL_MAX_TOTAL_BYTES) break;
    await unlink(file.path).catch(() => undefined);
    total -= file.size;
  }
}
