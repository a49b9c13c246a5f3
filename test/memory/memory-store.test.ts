import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/sessions/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { MemoryService, type MemorySettings, type Person } from '../../src/memory/index.js';
import { storeEngines, useEngine } from '../sessions/engines.js';
import { tempDir } from '../helpers/tool-context.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';

const alice: Person = { account: 'slack', id: 'U1' };
const bob: Person = { account: 'slack', id: 'U2' };
/** The same id on another platform is another person. */
const aliceOnTelegram: Person = { account: 'telegram', id: 'U1' };

const settings: MemorySettings = { memory_enabled: true, user_profile_enabled: true, memory_char_limit: 200, user_char_limit: 100 };

describe.each(storeEngines('memory store'))('memory on $name', ({ name }) => {
  const engine = useEngine(name);

  const keep = releaseAfterEach();

  /** A store on a fresh database and memory on it; the store is closed after the test. */
  async function open(): Promise<{ store: SessionStore; memory: MemoryService }> {
    const store = keep(SessionStore.open(await engine.fresh(), { logger: silentLogger() }), (opened) => opened.close());
    const memory = new MemoryService({ db: store.database, settings: () => settings, skillsDir: tempDir('hermes-skills-'), logger: silentLogger() });
    return { store, memory };
  }

  /** One turn of `person` in `key`'s current session, indexed as the agent does. */
  function turn(store: SessionStore, memory: MemoryService, key: string, person: Person, user: string, answer: string): string {
    const session = store.currentOrCreate(key);
    const from = memory.mark(session.id);
    memory.beginTurn({ sessionId: session.id, threadKey: key, person }, from);
    store.append(session.id, { role: 'user', content: user });
    store.append(session.id, { role: 'assistant', content: answer });
    memory.endTurn({ sessionId: session.id, threadKey: key, person });
    return session.id;
  }

  it('keeps two notes per person and platform account, each only its own', async () => {
    const { memory } = await open();
    expect(memory.notes.add(alice, 'user', 'Name: Alice, prefers metric units')).toMatchObject({ success: true, entry_count: 1 });
    expect(memory.notes.add(alice, 'memory', 'Deploys with make ship')).toMatchObject({ success: true });
    expect(memory.notes.add(bob, 'user', 'Name: Bob')).toMatchObject({ success: true });
    expect(memory.notes.entries(alice, 'user')).toEqual(['Name: Alice, prefers metric units']);
    expect(memory.notes.entries(bob, 'user')).toEqual(['Name: Bob']);
    expect(memory.notes.entries(aliceOnTelegram, 'user')).toEqual([]);
    expect(memory.notes.replace(alice, 'user', 'metric', 'Name: Alice, prefers imperial units')).toMatchObject({ success: true, message: 'Entry replaced.' });
    expect(memory.notes.entries(alice, 'user')).toEqual(['Name: Alice, prefers imperial units']);
    expect(memory.notes.remove(alice, 'memory', 'make ship')).toMatchObject({ success: true, entry_count: 0 });
    expect(memory.notes.remove(alice, 'memory', 'nothing like it')).toMatchObject({ error: expect.stringContaining('No entry matched') });
    expect(memory.notes.forget(alice)).toBe(1);
    expect(memory.notes.entries(alice, 'user')).toEqual([]);
    expect(memory.notes.entries(bob, 'user')).toEqual(['Name: Bob']);
  });

  it('refuses a note over its limit, naming the limit, and keeps what was there', async () => {
    const { memory } = await open();
    memory.notes.add(alice, 'user', 'x'.repeat(60));
    const refused = memory.notes.add(alice, 'user', 'y'.repeat(60));
    expect(refused).toMatchObject({ error: expect.stringContaining('its limit is 100 (memory.user_char_limit)'), current_entries: ['x'.repeat(60)] });
    expect(memory.notes.entries(alice, 'user')).toEqual(['x'.repeat(60)]);
    expect(memory.notes.replace(alice, 'user', 'xxx', 'z'.repeat(101))).toMatchObject({ error: expect.stringContaining('limit is 100') });
  });

  it('masks a credential before a note is stored', async () => {
    const { memory } = await open();
    const token = `ghp_${'a1B2c3D4e5'.repeat(4)}`;
    const result = memory.notes.add(alice, 'memory', `GitHub token is ${token}`);
    expect(result).toMatchObject({ success: true, masked: expect.stringContaining('masked') });
    expect(memory.notes.entries(alice, 'memory')[0]).not.toContain(token);
    expect(memory.notes.entries(alice, 'memory')[0]).toContain('[REDACTED]');
  });

  it("session_search finds a person's earlier sessions and never another person's, even in a shared thread", async () => {
    const { store, memory } = await open();
    turn(store, memory, 'slack:T:C:1', alice, 'our staging database is called heron-db', 'Noted: heron-db.');
    turn(store, memory, 'slack:T:C:2', bob, 'my staging database is called osprey-db', 'Noted: osprey-db.');
    // A group thread: both write in one session; each message is indexed under its speaker.
    turn(store, memory, 'slack:T:C:3', alice, 'heron-db needs a vacuum', 'ok');
    turn(store, memory, 'slack:T:C:3', bob, 'osprey-db needs a backup', 'ok');
    const now = store.create('slack:T:C:9');

    const found = memory.index.search(alice, 'staging database', { limit: 5, excludeSession: now.id });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ thread: 'slack:T:C:1', role: 'user', source: 'slack' });
    expect(found[0].snippet).toContain('>>>staging<<<');
    expect(found[0].when).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(JSON.stringify(memory.index.search(alice, 'osprey', { limit: 10 }))).toBe('[]');
    expect(memory.index.search(alice, 'heron', { limit: 10 }).map((hit) => hit.thread).sort()).toEqual(['slack:T:C:1', 'slack:T:C:3']);
    expect(memory.index.search(bob, 'heron', { limit: 10 })).toEqual([]);
    expect(memory.index.search(aliceOnTelegram, 'heron', { limit: 10 })).toEqual([]);
    // The session the model already sees is left out.
    const c1 = store.current('slack:T:C:1')!.id;
    expect(memory.index.search(alice, 'staging', { limit: 5, excludeSession: c1 })).toEqual([]);
    // No query: the person's recent sessions.
    expect(memory.index.recent(alice, { limit: 5 }).map((hit) => hit.thread).sort()).toEqual(['slack:T:C:1', 'slack:T:C:3']);
  });

  it('masks a credential in what a search hands back', async () => {
    const { store, memory } = await open();
    const token = `ghp_${'Zy9Xw8Vu7T'.repeat(4)}`;
    turn(store, memory, 'k:secret', alice, `the deploy token is ${token}`, 'ok');
    const [found] = memory.index.search(alice, 'deploy token', { limit: 3 });
    expect(found.snippet).toMatch(/ghp_\[REDACTED/);
    expect(found.snippet).not.toContain(token.slice(4));
  });

  it('reads OR, NOT, phrases and prefixes, and no query text can break the SQL', async () => {
    const { store, memory } = await open();
    turn(store, memory, 'k:1', alice, 'the kubernetes cluster restarted', 'a');
    turn(store, memory, 'k:2', alice, 'docker compose on the laptop', 'b');
    const threads = (query: string) => memory.index.search(alice, query, { limit: 10 }).map((hit) => hit.thread).sort();
    expect(threads('kubernetes OR docker')).toEqual(['k:1', 'k:2']);
    expect(threads('kube*')).toEqual(['k:1']);
    expect(threads('"compose on the"')).toEqual(['k:2']);
    expect(threads('"the laptop compose"')).toEqual([]);
    expect(threads('the NOT docker')).toEqual(['k:1']);
    expect(threads('the -kubernetes')).toEqual(['k:2']);
    for (const hostile of [`'); DROP TABLE search_docs; --`, '"', '***', 'NEAR(a b)', "o'brien & | ! :* <->", 'OR', 'NOT NOT', '(', '']) {
      expect(() => memory.index.search(alice, hostile, { limit: 3 }), hostile).not.toThrow();
    }
    expect(threads('kubernetes')).toEqual(['k:1']);
  });

  it("indexes a compaction summary only for a session one person wrote alone", async () => {
    const { store, memory } = await open();
    const solo = turn(store, memory, 'k:solo', alice, 'start', 'ok');
    const shared = turn(store, memory, 'k:shared', alice, 'start', 'ok');
    turn(store, memory, 'k:shared', bob, 'me too', 'ok');
    for (const id of [solo, shared]) {
      store.replaceContext(id, [{ message: { role: 'user', content: '[Summary of the earlier conversation (1 turn summarised)] decided on pelican-release' }, tokens: -1 }]);
    }
    turn(store, memory, 'k:solo', alice, 'next', 'ok');
    turn(store, memory, 'k:shared', alice, 'next', 'ok');
    const hits = memory.index.search(alice, 'pelican', { limit: 10 });
    expect(hits.map((hit) => [hit.thread, hit.kind])).toEqual([['k:solo', 'summary']]);
    expect(memory.index.search(bob, 'pelican', { limit: 10 })).toEqual([]);
  });
});
