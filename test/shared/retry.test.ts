import { describe, expect, it } from 'vitest';
import { backoffMs, retry, retryAfterMs } from '../../src/shared/retry.js';

class Refused extends Error {
  constructor(readonly final: boolean, readonly afterMs?: number) {
    super(final ? 'refused for good' : 'try again');
  }
}

describe('retry', () => {
  it('tries again until the operation succeeds, waiting what each error asks', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await retry(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw new Refused(false, attempt * 10);
        return `done on ${attempt}`;
      },
      {
        retries: 5,
        delayMs: (error) => (error instanceof Refused ? (error.afterMs ?? 0) : 0),
        onRetry: (_error, _attempt, waitMs) => waits.push(waitMs),
      },
    );
    expect(result).toBe('done on 3');
    expect(calls).toBe(3);
    expect(waits).toEqual([10, 20]);
  });

  it('stops at a failure the policy calls final and rejects with that very error', async () => {
    let calls = 0;
    const final = new Refused(true);
    const failing = retry(
      async () => {
        calls++;
        throw calls === 1 ? new Refused(false) : final;
      },
      { retries: 5, delayMs: () => 0, shouldRetry: (error) => !(error instanceof Refused && error.final) },
    );
    await expect(failing).rejects.toBe(final);
    expect(calls).toBe(2);
  });

  it('gives up after the retries and rejects with the last failure, a TypeError or a thrown string included', async () => {
    let calls = 0;
    await expect(
      retry(async () => {
        calls++;
        throw new TypeError(`bad ${calls}`);
      }, { retries: 2, delayMs: () => 0 }),
    ).rejects.toThrow('bad 3');
    expect(calls).toBe(3);
    await expect(
      retry(async () => {
        throw 'plain words';
      }, { retries: 1, delayMs: () => 0 }),
    ).rejects.toBe('plain words');
  });

  it('ends a wait when the signal aborts and rejects with the failure it waited after', async () => {
    const controller = new AbortController();
    const failure = new Refused(false);
    let calls = 0;
    const waiting = retry(
      async () => {
        calls++;
        throw failure;
      },
      { retries: 3, delayMs: () => 60_000, signal: controller.signal, onRetry: () => setImmediate(() => controller.abort('shutdown')) },
    );
    await expect(waiting).rejects.toBe(failure);
    expect(calls).toBe(1);
  });
});

describe('backoffMs and retryAfterMs', () => {
  it('doubles from the first wait up to the cap, jitter taking off at most its share', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, { firstMs: 100, maxMs: 1000 }))).toEqual([100, 200, 400, 800, 1000]);
    for (let i = 0; i < 50; i++) {
      const wait = backoffMs(2, { firstMs: 100, maxMs: 1000, jitter: 0.25 });
      expect(wait).toBeGreaterThanOrEqual(150);
      expect(wait).toBeLessThanOrEqual(200);
    }
  });

  it('reads retry-after-ms, seconds and an HTTP date; nothing when the header says no wait', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});
