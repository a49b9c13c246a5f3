import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TranscriptStore, type WebEntry } from '../../adapters/web/index.js';

/*
 * Several instances on one HERMES_HOME write the same transcript folder: two stores on one
 * folder stand for two instances (each with its own cache, as in two processes).
 */
describe('TranscriptStore shared by several instances: each sees what the others wrote', () => {
  let dir: string;
  const running = new Set<string>();
  const shared = () => new TranscriptStore(dir, { turnRunning: (id) => running.has(id) });
  const user = (id: string, text: string): WebEntry => ({ kind: 'user', id, at: 1, text });
  const ids = (store: TranscriptStore, thread: string) => store.entries(thread).map((entry) => entry.id);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hermes-web-shared-'));
    running.clear();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads what another instance appended after this one had the thread cached, in the file’s order', () => {
    const a = shared();
    const b = shared();
    const thread = a.createThread();
    a.put(thread, user('u1', 'first'));
    expect(ids(b, thread)).toEqual(['u1']);
    b.put(thread, user('u2', 'second'));
    a.put(thread, user('u3', 'third'));
    b.put(thread, { kind: 'assistant', id: 'a1', at: 2, text: 'answer', interim: false });
    // A later write of an entry replaces it in place, wherever it was written.
    a.put(thread, user('u2', 'second, edited'));
    expect(ids(a, thread)).toEqual(['u1', 'u2', 'u3', 'a1']);
    expect(b.entries(thread)).toEqual(a.entries(thread));
    expect(a.entry(thread, 'u2')).toMatchObject({ text: 'second, edited' });
    expect(new TranscriptStore(dir).entries(thread)).toEqual(a.entries(thread));
  });

  it('leaves a line another instance is still writing for the next look', () => {
    const a = shared();
    const thread = a.createThread();
    a.put(thread, user('u1', 'whole'));
    const line = JSON.stringify(user('u2', 'being written'));
    appendFileSync(join(dir, `${thread}.jsonl`), line.slice(0, 20));
    expect(ids(a, thread)).toEqual(['u1']);
    appendFileSync(join(dir, `${thread}.jsonl`), line.slice(20) + '\n');
    expect(ids(a, thread)).toEqual(['u1', 'u2']);
  });

  it('places a notice in front of a later message for every instance and after a restart, by appending', () => {
    const a = shared();
    const b = shared();
    const thread = a.createThread();
    a.put(thread, user('u1', 'work'));
    b.put(thread, user('u2', 'interrupting'));
    a.putBefore(thread, { kind: 'notice', id: 'n1', at: 3, text: 'Turn interrupted', tone: 'warning' }, 'u2');
    expect(ids(a, thread)).toEqual(['u1', 'n1', 'u2']);
    expect(ids(b, thread)).toEqual(['u1', 'n1', 'u2']);
    expect(ids(new TranscriptStore(dir), thread)).toEqual(['u1', 'n1', 'u2']);
  });

  it('shows a call still running as running while a turn runs in its thread anywhere, and as stopped once none does', () => {
    const a = shared();
    const b = shared();
    const thread = a.createThread();
    running.add(thread);
    a.put(thread, { kind: 'tool', id: 't1', at: 1, name: 'execute_code', status: 'running' });
    expect(b.entries(thread)[0]).toMatchObject({ status: 'running' });
    running.delete(thread);
    expect(b.entries(thread)[0]).toMatchObject({ status: 'interrupted', error: expect.stringContaining('gateway stopped') });
    // What is kept is what was written: the instance running it still finishes the same entry.
    expect(a.entry(thread, 't1')).toMatchObject({ status: 'running' });
  });

  it('agrees on titles and deletes, and keeps a thread another instance just opened (still empty) when listing', () => {
    const a = shared();
    const b = shared();
    const kept = a.createThread();
    a.put(kept, user('u1', 'plot the sales'));
    const gone = a.createThread();
    a.put(gone, user('u2', 'count files'));
    expect(b.listThreads().map((thread) => thread.id).sort()).toEqual([kept, gone].sort());
    b.rename(kept, 'Sales chart');
    expect(a.summary(kept)?.title).toBe('Sales chart');
    expect(a.listThreads('chart').map((thread) => thread.id)).toEqual([kept]);
    a.rename(kept, 'Sales, again');
    expect(b.listThreads().find((thread) => thread.id === kept)?.title).toBe('Sales, again');
    b.delete(gone);
    expect(a.hasThread(gone)).toBe(false);
    expect(a.entries(gone)).toEqual([]);
    expect(a.listThreads().map((thread) => thread.id)).toEqual([kept]);

    const fresh = b.createThread();
    expect(shared().listThreads().map((thread) => thread.id)).toEqual([kept]);
    expect(existsSync(join(dir, `${fresh}.jsonl`))).toBe(true);
    expect(a.hasThread(fresh)).toBe(true);
  });
});
