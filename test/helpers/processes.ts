import { readFileSync } from 'node:fs';
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
