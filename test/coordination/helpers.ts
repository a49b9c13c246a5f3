import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `probe` until it gives a value (not undefined or false), or throws naming `what` after `ms`. */
export async function until<T>(probe: () => Promise<T | undefined | false> | T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${ms} ms`);
    await sleep(20);
  }
}
