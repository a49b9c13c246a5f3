import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const hasProc = process.platform === 'linux';

/**
 * Sends `signal` to every process in the group led by `pgid`; false when none is left.
 * @throws RangeError for a pgid that is not a real group (0 or 1 would signal our own group or every process).
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`refusing to signal process group ${pgid}`);
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    if ((error as NodeJS.ErrnoException).code === 'EPERM') return true;
    throw error;
  }
}

/**
 * True while any process of the group is alive. On Linux zombies do not count: an orphan
 * that died waits for PID 1 to reap it, which in a container can take seconds.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (!hasProc) return true;
  for (const entry of readdirSync('/proc')) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const stat = procStat(entry);
    if (stat?.pgrp === pgid && living(stat.state)) return true;
  }
  return false;
}

/** True while the process exists and, on Linux, is not a zombie (see groupAlive). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (hasProc) {
    const stat = procStat(pid);
    return stat !== undefined && living(stat.state);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** State and process group of a process, from /proc; undefined once it is gone. */
function procStat(pid: number | string): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined; // exited while we looked
  }
  // Fields after the command name: state ppid pgrp ...
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], pgrp: Number(fields[2]) };
}

const living = (state: string): boolean => state !== 'Z' && state !== 'X';

/**
 * SIGTERM to the whole group, then SIGKILL once `graceMs` has passed with any member still
 * alive. Resolves when the group is gone or the SIGKILL is sent.
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  const deadline = Date.now() + graceMs;
  let wait = 5;
  while (Date.now() < deadline) {
    await sleep(Math.min(wait, Math.max(1, deadline - Date.now())));
    if (!groupAlive(pgid)) return;
    wait = Math.min(wait * 2, 100);
  }
  signalGroup(pgid, 'SIGKILL');
}

/** SIGKILL to the whole group at once. */
export function killGroup(pgid: number): void {
  signalGroup(pgid, 'SIGKILL');
}
