import type { Environment } from '../../environments/types.js';
import { backendName } from './remote-folder.js';

/** Backends swept by this gateway process (by name: sessions on one host share its TMPDIR). */
const swept = new Set<string>();
const MAX_REMEMBERED = 10_000;

/**
 * True the first time this gateway process runs execute_code on a backend: that run also
 * removes the folders a killed gateway left there (remote_sweep.py: ours, over a minute old,
 * and not held by a live runner's lock).
 */
export function claimSweep(environment: Environment): boolean {
  const name = backendName(environment);
  if (swept.has(name)) return false;
  if (swept.size >= MAX_REMEMBERED) swept.clear();
  swept.add(name);
  return true;
}

/** Forgets which backends were swept: the next run on each sweeps again (tests; a gateway that wants a fresh sweep). */
export function forgetSweeps(): void {
  swept.clear();
}
