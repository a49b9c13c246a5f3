import { describe, expect, it } from 'vitest';
import { watchRun } from '../../src/shared/run-limits.js';

/** A stop that counts its calls and resolves `stopped` at the first. */
function stopper() {
  let calls = 0;
  let first!: () => void;
  const stopped = new Promise<void>((resolve) => (first = resolve));
  return {
    stop: () => {
      calls++;
      first();
    },
    stopped,
    calls: () => calls,
  };
}

describe('watchRun', () => {
  it('records an abort and its reason as values, and stops the run', () => {
    const controller = new AbortController();
    const s = stopper();
    const watch = watchRun({ timeoutSeconds: 60, signal: controller.signal }, s.stop);
    controller.abort('user sent a new message');
    expect(s.calls()).toBe(1);
    expect(watch.done()).toEqual({ timedOut: false, interrupted: true, reason: 'user sent a new message' });
  });

  it('stops at once for a signal that was already aborted', () => {
    const controller = new AbortController();
    controller.abort(new Error('gateway shutting down'));
    const s = stopper();
    const watch = watchRun({ signal: controller.signal }, s.stop);
    expect(s.calls()).toBe(1);
    expect(watch.done()).toEqual({ timedOut: false, interrupted: true, reason: 'gateway shutting down' });
  });

  it('records a timeout, and an abort after it is not an interrupt', async () => {
    const controller = new AbortController();
    const s = stopper();
    const watch = watchRun({ timeoutSeconds: 0.05, signal: controller.signal }, s.stop);
    await s.stopped;
    controller.abort('too late');
    expect(watch.done()).toEqual({ timedOut: true, interrupted: false });
    expect(s.calls()).toBe(1);
  });

  it('does nothing once done: no stop for a later abort', () => {
    const controller = new AbortController();
    const s = stopper();
    const watch = watchRun({ timeoutSeconds: 0, signal: controller.signal }, s.stop);
    expect(watch.done()).toEqual({ timedOut: false, interrupted: false });
    controller.abort('after the run');
    expect(s.calls()).toBe(0);
  });
});
