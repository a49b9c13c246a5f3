import { describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../src/approvals/index.js';

const request = { command: 'git reset --hard', reason: 'git reset --hard discards uncommitted work' };

describe('ApprovalBroker', () => {
  it('resolves true after approve and false after deny', async () => {
    const shown: string[] = [];
    const broker = new ApprovalBroker({ timeoutMs: 60_000, onRequest: (key, r) => shown.push(`${key}: ${r.command}`) });
    const first = broker.request('t1', request);
    expect(shown).toEqual(['t1: git reset --hard']);
    expect(broker.pending('t1')).toEqual(request);
    expect(broker.resolve('t1', true)).toBe(true);
    expect(await first).toBe(true);
    const second = broker.request('t1', request);
    broker.resolve('t1', false);
    expect(await second).toBe(false);
    expect(broker.pending('t1')).toBeUndefined();
  });

  it('answers nothing when nothing waits, and keeps sessions apart', async () => {
    const broker = new ApprovalBroker({ timeoutMs: 60_000 });
    expect(broker.resolve('t1', true)).toBe(false);
    const a = broker.request('a', request);
    const b = broker.request('b', request);
    broker.resolve('b', true);
    expect(await b).toBe(true);
    expect(broker.pending('a')).toEqual(request);
    broker.resolve('a', false);
    expect(await a).toBe(false);
  });

  it('answers a session\'s requests oldest first', async () => {
    const broker = new ApprovalBroker({ timeoutMs: 60_000 });
    const first = broker.request('t', { command: 'one', reason: 'r' });
    const second = broker.request('t', { command: 'two', reason: 'r' });
    expect(broker.pending('t')?.command).toBe('one');
    broker.resolve('t', false);
    broker.resolve('t', true);
    expect([await first, await second]).toEqual([false, true]);
  });

  it('denies when no answer comes within the timeout', async () => {
    const broker = new ApprovalBroker({ timeoutMs: 50 });
    expect(await broker.request('t', request)).toBe(false);
    expect(broker.pending('t')).toBeUndefined();
    expect(broker.resolve('t', true)).toBe(false);
  });

  it('denies at once when the signal aborts, or was already aborted', async () => {
    const broker = new ApprovalBroker({ timeoutMs: 60_000 });
    const controller = new AbortController();
    const waiting = broker.request('t', request, controller.signal);
    controller.abort('stopped');
    expect(await waiting).toBe(false);
    expect(broker.pending('t')).toBeUndefined();
    expect(await broker.request('t', request, controller.signal)).toBe(false);
  });

  it('cancel denies everything a session has waiting', async () => {
    const broker = new ApprovalBroker({ timeoutMs: 60_000 });
    const both = Promise.all([broker.request('t', request), broker.request('t', request)]);
    expect(broker.cancel('t')).toBe(2);
    expect(await both).toEqual([false, false]);
  });
});
