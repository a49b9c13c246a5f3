import { abortReason } from './notices.js';

/** What ended a run early, as values: its timeout, its signal (with the reason), or neither. */
export interface RunEnd {
  timedOut: boolean;
  interrupted: boolean;
  /** The abort reason when `interrupted` (see abortReason). */
  reason?: string;
}

/**
 * Watches a run's timeout and signal: when `timeoutSeconds` (none or 0: no limit) passes or
 * `signal` aborts (at once when it already has), it records which and calls `stop` (which must
 * be idempotent: both may come). An abort after the timeout is not an interrupt. `done()`
 * removes the timer and the listener and returns what was recorded.
 */
export function watchRun(limits: { timeoutSeconds?: number; signal?: AbortSignal }, stop: () => void): { done(): RunEnd } {
  const end: RunEnd = { timedOut: false, interrupted: false };
  const { timeoutSeconds, signal } = limits;
  const timer =
    timeoutSeconds !== undefined && timeoutSeconds > 0
      ? setTimeout(() => {
          end.timedOut = true;
          stop();
        }, timeoutSeconds * 1000)
      : undefined;
  const onAbort = () => {
    if (end.timedOut) return;
    end.interrupted = true;
    end.reason = abortReason(signal);
    stop();
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    done: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return { ...end };
    },
  };
}
