import { abortReason } from './notices.js';

/** What a transfer or a helper call rejects with when its signal aborts: node's AbortError shape, with the reason in words. */
export function abortError(signal: AbortSignal, what: string): Error {
  const reason = abortReason(signal);
  return Object.assign(new Error(`${what} was interrupted${reason ? `: ${reason}` : ''}`), {
    name: 'AbortError', code: 'ABORT_ERR', cause: signal.reason as unknown,
  });
}

/** True for the error abortError makes (and node's own AbortErrors). */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
