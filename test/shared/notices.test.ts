import { describe, expect, it } from 'vitest';
import { abortReason, abortText, interruptedNotice } from '../../src/shared/index.js';

const aborted = (...reason: unknown[]): AbortSignal => {
  const controller = new AbortController();
  controller.abort(...reason);
  return controller.signal;
};

describe('the interrupt reason', () => {
  it('is the string or the Error message a signal was aborted with, and nothing for a bare abort', () => {
    expect(abortReason(aborted('user sent a new message'))).toBe('user sent a new message');
    expect(abortReason(aborted(new Error('gateway shutting down')))).toBe('gateway shutting down');
    expect(abortReason(aborted())).toBeUndefined();
    expect(abortReason(aborted(''))).toBeUndefined();
    expect(abortReason(aborted(42))).toBeUndefined();
    expect(abortReason(new AbortController().signal)).toBeUndefined();
    expect(abortReason(undefined)).toBeUndefined();
  });

  it('reads the same through abortText, which says "interrupted" where there is none', () => {
    expect(abortText(aborted('stopped by the user'))).toBe('stopped by the user');
    expect(abortText(aborted())).toBe('interrupted');
  });

  it('shows as [execution interrupted — reason], or without the dash when there is none', () => {
    expect(interruptedNotice(abortReason(aborted('user sent a new message')))).toBe('[execution interrupted — user sent a new message]');
    expect(interruptedNotice(abortReason(aborted()))).toBe('[execution interrupted]');
  });
});
