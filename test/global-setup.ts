import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the run its own TMPDIR, removed at the end: tests make many temp folders (and the
 * gateway's staging folders live there too), and a shared /tmp would collect them run after
 * run. Test workers start after this and inherit it.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-tests-'));
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
