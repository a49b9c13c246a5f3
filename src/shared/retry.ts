import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';

/** How a failing operation is tried again. */
export interface RetryPolicy {
  /** Tries after the first one. */
  retries: number;
  /** Whether this failure is worth another try (default: every failure is). `attempt` counts from 1. */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** The wait before the next try: a Retry-After the error carries, else a backoff ({@link backoffMs}). */
  delayMs: (error: unknown, attempt: number) => number;
  /** Told before each wait. */
  onRetry?: (error: unknown, attempt: number, waitMs: number) => void;
  /** Ends a wait early; the helper then rejects with the failure it was waiting after. */
  signal?: AbortSignal;
}

/**
 * Carries a failure through p-retry untouched: p-retry gives up at once on a TypeError and
 * wraps what is not an Error, and the caller's own decision is the one that counts.
 */
class FailedAttempt extends Error {
  constructor(readonly failure: unknown) {
    super('attempt failed');
  }
}

const unwrap = (error: unknown): unknown => (error instanceof FailedAttempt ? error.failure : error);

/**
 * Runs `run` until it succeeds, the policy says a failure is final, the tries are used up or
 * the signal aborts; rejects with the last failure, as `run` threw it. p-retry counts and
 * stops; the wait is ours because p-retry 7 has no per-error delay (a server's Retry-After).
 */
export async function retry<T>(run: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  try {
    return await pRetry(
      async (attempt) => {
        try {
          return await run(attempt);
        } catch (error) {
          throw new FailedAttempt(error);
        }
      },
      {
        retries: policy.retries,
        // p-retry's own wait is off: onFailedAttempt waits as long as this error asks.
        minTimeout: 0,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft <= 0) return; // p-retry rejects with it
          const failure = unwrap(error);
          // Throwing here is how p-retry is told to stop at once.
          if (policy.shouldRetry && !policy.shouldRetry(failure, attemptNumber)) throw error;
          const wait = Math.max(0, policy.delayMs(failure, attemptNumber));
          policy.onRetry?.(failure, attemptNumber, wait);
          try {
            await sleep(wait, undefined, { signal: policy.signal });
          } catch {
            throw error;
          }
        },
      },
    );
  } catch (error) {
    throw unwrap(error);
  }
}

/** Exponential backoff: `firstMs` before the second try, doubling up to `maxMs`; `jitter` takes off up to that share at random. */
export function backoffMs(attempt: number, options: { firstMs: number; maxMs: number; jitter?: number }): number {
  const wait = Math.min(options.firstMs * 2 ** Math.max(0, attempt - 1), options.maxMs);
  return wait * (1 - Math.random() * (options.jitter ?? 0));
}

/**
 * The wait a Retry-After header asks for, in ms: seconds or an HTTP date; `retry-after-ms`
 * (OpenAI's) wins when given. Undefined when neither says a wait.
 */
export function retryAfterMs(headers: { get(name: string): string | null }, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (!after) return undefined;
  const seconds = Number.parseFloat(after);
  const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - now;
  return Number.isFinite(wait) && wait >= 0 ? wait : undefined;
}
