import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { MIGRATIONS, POSTGRES_MIGRATIONS, SessionStore, type StateLocation } from '../../src/sessions/index.js';
import { silentLogger, type Logger } from '../../src/shared/index.js';
import { storeEngines, useEngine } from './engines.js';
import { closeAfterEach } from '../helpers/close-after-each.js';

const open = closeAfterEach((location: StateLocation, logger: Logger = silentLogger()): SessionStore => SessionStore.open(location, { logger }));

describe.each(storeEngines('the session store tests'))('SessionStore on $name', ({ name }) => {
  const engine = useEngine(name);

  if (name === 'sqlite') {
    it('creates the schema in WAL mode and records the version in user_version', async () => {
      const file = await engine.fresh();
      open(file);
      const raw = new Database(file as string, { readonly: true });
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      raw.close();
    });
  } else {
    it('creates the schema and records each version applied, once, in schema_version', async () => {
      const location = await engine.fresh();
      open(location);
      open(location).close();
      const rows = engine.raw(location).prepare<[], { version: number }>('SELECT version FROM schema_version ORDER BY version').all();
      expect(rows.map((row) => row.version)).toEqual(POSTGRES_MIGRATIONS.map((_, index) => index + 1));
      expect(POSTGRES_MIGRATIONS).toHaveLength(MIGRATIONS.length);
    });
  }

  it('refuses a database from a newer version with a message saying so', async () => {
    const location = await engine.fresh();
    engine.markVersion(location, MIGRATIONS.length + 1);
    expect(() => open(location)).toThrow(new RegExp(`schema version ${MIGRATIONS.length + 1}, newer than this hermes-gateway knows`));
  });

  it('keeps one current session per key and messages in order', async () => {
    const store = open(await engine.fresh());
    const a = store.currentOrCreate('slack:T:C:1');
    expect(store.currentOrCreate('slack:T:C:1').id).toBe(a.id);
    expect(store.currentOrCreate('slack:T:C:2').id).not.toBe(a.id);
    store.append(a.id, { role: 'user', content: 'one' });
    store.append(a.id, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'x', arguments: '{}' } }] });
    store.append(a.id, { role: 'tool', tool_call_id: 'c1', content: 'result' });
    expect(store.messages(a.id).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(store.messageCount(a.id)).toBe(3);
  });

  it('a new session for a key leaves the old one readable', async () => {
    const store = open(await engine.fresh());
    const old = store.currentOrCreate('web:1');
    store.append(old.id, { role: 'user', content: 'before /new' });
    const fresh = store.create('web:1');
    expect(store.current('web:1')?.id).toBe(fresh.id);
    expect(store.messages(fresh.id)).toEqual([]);
    expect(store.messages(old.id)).toEqual([{ role: 'user', content: 'before /new' }]);
    expect(store.history('web:1').map((s) => s.id)).toEqual([old.id, fresh.id]);
  });

  it('skips a corrupt row with a log line instead of failing', async () => {
    const location = await engine.fresh();
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    const store = open(location, pino({ level: 'warn' }, sink));
    const session = store.currentOrCreate('k');
    store.append(session.id, { role: 'user', content: 'good 1' });
    const raw = engine.raw(location);
    raw.prepare('INSERT INTO messages (session_id, created_at, message) VALUES (?, 0, ?)').run(session.id, '{"role": "user", "content": ');
    raw.prepare('INSERT INTO messages (session_id, created_at, message) VALUES (?, 0, ?)').run(session.id, '{"role": "wizard"}');
    raw.close();
    store.append(session.id, { role: 'user', content: 'good 2' });
    expect(store.messages(session.id)).toEqual([
      { role: 'user', content: 'good 1' },
      { role: 'user', content: 'good 2' },
    ]);
    expect(lines.join('')).toContain('skipped corrupt message row 2: invalid JSON');
    expect(lines.join('')).toContain('skipped corrupt message row 3: unknown role');
  });

  it('two connections on one database see each other\'s writes (busy timeout, WAL; or one PostgreSQL)', async () => {
    const location = await engine.fresh();
    const first = open(location);
    const second = open(location);
    const session = first.currentOrCreate('console:me');
    expect(second.currentOrCreate('console:me').id).toBe(session.id);
    first.append(session.id, { role: 'user', content: 'from the first' });
    second.append(session.id, { role: 'assistant', content: 'from the second' });
    expect(first.messages(session.id).map((m) => m.content)).toEqual(['from the first', 'from the second']);
  });

  it('remembers the interrupted reason and the skill passthrough names', async () => {
    const store = open(await engine.fresh());
    const session = store.currentOrCreate('k');
    store.setInterrupted(session.id, 'user sent a new message');
    expect(store.addPassthrough(session.id, ['A_KEY'])).toEqual(['A_KEY']);
    expect(store.addPassthrough(session.id, ['A_KEY', 'B_TOKEN'])).toEqual(['A_KEY', 'B_TOKEN']);
    const again = store.current('k')!;
    expect(again.interruptedReason).toBe('user sent a new message');
    expect(again.passthrough).toEqual(['A_KEY', 'B_TOKEN']);
  });
});
