import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { processAlive } from '../../src/environments/index.js';

/**
 * The pid a test script wrote to `file`. A script's `open(f, "w").write(pid)` makes the file
 * before it fills it, and `Number('')` is 0, which `process.kill` takes as our own process
 * group: so anything but a pid above 1 is an error here, never a number.
 */
export function readPid(file: string): number {
  const text = readFileSync(file, 'utf8').trim();
  const pid = Number(text);
  if (!/^\d+$/.test(text) || pid <= 1) throw new Error(`${file} does not hold a pid: ${JSON.stringify(text)}`);
  return pid;
}

/** Waits until `file` holds a whole pid (see readPid), or throws after `timeoutMs`. */
export async function waitForPid(file: string, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return readPid(file);
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await sleep(25);
  }
}

export { processAlive };

/** Polls until `pid` is gone (zombies count as gone); true if it went within `ms`. */
export async function waitGone(pid: number, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

/** Host processes (zombies excluded, this one too) one of whose argv words is `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (/\) [ZX] /.test(readFileSync(`/proc/${entry}/stat`, 'latin1'))) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').includes(marker)) found.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

/** Waits (up to `ms`) until no process carries `marker`; returns those still alive. */
export async function survivorsOf(marker: string, ms = 10_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (processesWith(marker).length === 0) return [];
    await sleep(50);
  }
  return processesWith(marker);
}

/** Waits (up to `ms`) until some process carries `marker`; returns them. */
export async function waitForProcess(marker: string, ms = 10_000): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = processesWith(marker);
    if (found.length > 0 || Date.now() > deadline) return found;
    await sleep(25);
  }
}
