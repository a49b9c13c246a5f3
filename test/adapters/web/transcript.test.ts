import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isThreadId, TranscriptStore } from '../../../adapters/web/transcript.js';

describe('TranscriptStore: what each web thread showed, kept on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hermes-web-transcript-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a thread back in a new store (a restart), with later writes of an entry replacing earlier ones', () => {
    const store = new TranscriptStore(dir);
    const id = store.createThread();
    store.put(id, { kind: 'user', id: 'u1', at: 1, text: 'hello' });
    store.put(id, { kind: 'tool', id: 't1', at: 2, name: 'execute_code', status: 'running' });
    store.put(id, { kind: 'tool', id: 't1', at: 2, name: 'execute_code', status: 'success', output: 'hi\n' });
    store.put(id, { kind: 'assistant', id: 'a1', at: 3, text: 'done', interim: false });

    const again = new TranscriptStore(dir);
    expect(again.hasThread(id)).toBe(true);
    expect(again.entries(id)).toEqual([
      { kind: 'user', id: 'u1', at: 1, text: 'hello' },
      { kind: 'tool', id: 't1', at: 2, name: 'execute_code', status: 'success', output: 'hi\n' },
      { kind: 'assistant', id: 'a1', at: 3, text: 'done', interim: false },
    ]);
  });

  it('shows a call left running by an earlier run as interrupted (the gateway stopped mid-call)', () => {
    const store = new TranscriptStore(dir);
    const id = store.createThread();
    store.put(id, { kind: 'tool', id: 't1', at: 1, name: 'execute_code', status: 'running' });
    expect(store.entries(id)[0]).toMatchObject({ status: 'running' });
    expect(new TranscriptStore(dir).entries(id)[0]).toMatchObject({ status: 'interrupted', error: expect.stringContaining('gateway stopped') });
  });

  it('skips a line torn by a crash and keeps the rest of the thread', () => {
    const store = new TranscriptStore(dir);
    const id = store.createThread();
    store.put(id, { kind: 'user', id: 'u1', at: 1, text: 'kept' });
    appendFileSync(join(dir, `${id}.jsonl`), '{"kind":"assistant","id":"a1","te');
    expect(new TranscriptStore(dir).entries(id)).toEqual([{ kind: 'user', id: 'u1', at: 1, text: 'kept' }]);
  });

  it('lists threads most recent first, titled by their first message; a thread left empty is not listed and is removed at the next start', () => {
    const store = new TranscriptStore(dir);
    const first = store.createThread();
    store.put(first, { kind: 'user', id: 'u1', at: 1, text: 'first   thread\nwith lines' });
    const empty = store.createThread();
    const second = store.createThread();
    store.put(second, { kind: 'user', id: 'u2', at: 2, text: 'y'.repeat(100) });
    // A restart knows a thread's last activity from its file's mtime. Set them outright:
    // a file system's clock may be coarser than the gap between writes in a test.
    const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    utimesSync(join(dir, `${first}.jsonl`), minutesAgo(30), minutesAgo(30));
    utimesSync(join(dir, `${empty}.jsonl`), minutesAgo(20), minutesAgo(20));
    utimesSync(join(dir, `${second}.jsonl`), minutesAgo(10), minutesAgo(10));

    const listed = new TranscriptStore(dir).listThreads();
    expect(listed.map((thread) => thread.id)).toEqual([second, first]);
    expect(listed.map((thread) => thread.title)).toEqual(['y'.repeat(59) + '…', 'first thread with lines']);
    expect(existsSync(join(dir, `${empty}.jsonl`))).toBe(false);
    expect(existsSync(join(dir, `${first}.jsonl`))).toBe(true);
  });

  it('renames a thread (the name survives a restart), finds threads by words of their messages, and deletes one', () => {
    const store = new TranscriptStore(dir);
    const a = store.createThread();
    store.put(a, { kind: 'user', id: 'u1', at: 1, text: 'plot the sales figures' });
    store.put(a, { kind: 'assistant', id: 'a1', at: 2, text: 'Here is the **chart**', interim: false });
    const b = store.createThread();
    store.put(b, { kind: 'user', id: 'u2', at: 3, text: 'count python files' });
    store.rename(a, '  Quarterly   chart ');

    const again = new TranscriptStore(dir);
    expect(again.summary(a)?.title).toBe('Quarterly chart');
    expect(again.listThreads('CHART').map((thread) => thread.id)).toEqual([a]);
    expect(again.listThreads('python count').map((thread) => thread.id)).toEqual([b]);
    expect(again.listThreads('python sales')).toEqual([]);
    again.delete(a);
    expect(again.hasThread(a)).toBe(false);
    expect(new TranscriptStore(dir).listThreads().map((thread) => thread.id)).toEqual([b]);
    expect(readdirSync(dir).filter((name) => name.startsWith(a))).toEqual([]);
  });

  it('refuses thread ids that are not plain names, so no path leaves the folder', () => {
    const store = new TranscriptStore(dir);
    for (const bad of ['../x', 'a/b', '', '.hidden', 'A'.repeat(3), 'x'.repeat(65)]) {
      expect(isThreadId(bad)).toBe(false);
      expect(store.hasThread(bad)).toBe(false);
      expect(() => store.put(bad, { kind: 'user', id: 'u', at: 1, text: 'x' })).toThrow(/refusing thread id/);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
