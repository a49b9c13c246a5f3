import { describe, expect, it } from 'vitest';
import { SessionStore, type StateLocation } from '../../src/sessions/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { storeEngines, useEngine } from './engines.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

const open = closeAfterEach((location: StateLocation) => SessionStore.open(location, { logger: silentLogger() }));

describe.each(storeEngines('the model\'s view tests'))('the model\'s view in the state database ($name)', ({ name }) => {
  const engine = useEngine(name);

  it('a database from schema 1 keeps its sessions: every message is in the view after the upgrade', async () => {
    const location = await engine.fresh();
    engine.schemaAt(location, 1);
    const raw = engine.raw(location);
    raw.prepare("INSERT INTO sessions (id, key, created_at, updated_at) VALUES ('s-old', 'web:1', 0, 0)").run();
    for (const content of ['one', 'two']) raw.prepare("INSERT INTO messages (session_id, created_at, message) VALUES ('s-old', 0, ?)").run(JSON.stringify({ role: 'user', content }));
    raw.close();
    const store = open(location);
    expect(store.context('s-old').map((row) => [row.message.content, row.tokens])).toEqual([['one', -1], ['two', -1]]);
    expect(store.current('web:1')?.id).toBe('s-old');
  });

  it('keeps the whole history and the view apart: a shortened copy, a replaced view, a truncated tail; every change moves the revision', async () => {
    const store = open(await engine.fresh());
    const session = store.currentOrCreate('k');
    const rev0 = store.contextRev(session.id);
    const full = { role: 'user' as const, content: 'the whole long message' };
    const first = store.appendWithView(session.id, full, { message: { role: 'user', content: 'short' }, tokens: 3 });
    expect(first.rev).toBeGreaterThan(rev0);
    store.append(session.id, { role: 'assistant', content: 'answer' });
    expect(store.messages(session.id).map((m) => m.content)).toEqual(['the whole long message', 'answer']);
    expect(store.context(session.id).map((row) => row.message.content)).toEqual(['short', 'answer']);

    const replaced = store.replaceContext(session.id, [{ message: { role: 'user', content: '[Summary of the earlier conversation]' }, tokens: 9 }]);
    expect(replaced.rev).toBeGreaterThan(first.rev);
    store.append(session.id, { role: 'user', content: 'later' });
    const view = store.context(session.id);
    expect(view.map((row) => row.message.content)).toEqual(['[Summary of the earlier conversation]', 'later']);
    const rev = store.truncateContext(session.id, view[1].seq);
    expect(rev).toBe(store.contextRev(session.id));
    expect(store.context(session.id)).toHaveLength(1);
    // The history never lost anything.
    expect(store.messages(session.id).map((m) => m.content)).toEqual(['the whole long message', 'answer', 'later']);
  });

  it('records usage per turn and per summary call, and keeps per-thread settings across sessions', async () => {
    const location = await engine.fresh();
    const store = open(location);
    const session = store.currentOrCreate('k');
    store.usage.add(session.id, { kind: 'turn', model: 'a', calls: 2, promptTokens: 100, completionTokens: 10, estimated: false });
    store.usage.add(session.id, { kind: 'summary', model: 'a', calls: 1, promptTokens: 50, completionTokens: 5, estimated: true });
    store.usage.add(session.id, { kind: 'turn', model: 'b', calls: 1, promptTokens: 30, completionTokens: 3, estimated: false });
    const summary = store.usage.summary(session.id);
    expect(summary.lastTurn).toMatchObject({ model: 'b', promptTokens: 30, calls: 1 });
    expect(summary.byModel).toEqual([
      { model: 'a', calls: 3, promptTokens: 150, completionTokens: 15, estimated: true, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { model: 'b', calls: 1, promptTokens: 30, completionTokens: 3, estimated: false, cacheReadTokens: 0, cacheWriteTokens: 0 },
    ]);
    expect(summary.summaries).toBe(1);

    expect(store.threadSettings.update('k', { model: 'b', toolProgress: 'all' })).toEqual({ model: 'b', toolProgress: 'all' });
    store.create('k');
    store.close();
    const again = open(location);
    expect(again.threadSettings.get('k')).toEqual({ model: 'b', toolProgress: 'all' });
    expect(again.threadSettings.update('k', { model: undefined })).toEqual({ toolProgress: 'all' });
  });
});
