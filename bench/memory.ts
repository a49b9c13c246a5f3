/*
 * Memory per person (src/memory). session_search over 100,000 stored messages (ten people,
 * 10,000 each, in 1,000 sessions) on SQLite (FTS5) and on PostgreSQL (tsvector + GIN), each
 * against a plain LIKE scan of the same person's messages in the same run: p50 and p99 over
 * the same queries. Then the agent's own time per turn with memory on (notes in the prompt,
 * the turn indexed for search) and off, with an in-process model, baseline off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../src/agent/agent.js';
import type { ModelClient, ModelReply } from '../src/agent/model-client.js';
import { ContextWindows } from '../src/agent/context/window.js';
import { loadTokenizer } from '../src/agent/context/tokens.js';
import { hermesPaths, validateConfig } from '../src/config/index.js';
import { SessionStore, type SqlDb, type StateLocation } from '../src/sessions/index.js';
import { silentLogger } from '../src/shared/index.js';
import { ToolRegistry } from '../src/tools/index.js';
import { MemoryNotes, NotesStore, SearchIndex, ownerToken, type MemorySettings, type Person } from '../src/memory/index.js';
import { postgresUnavailable, startPostgres } from '../test/helpers/postgres.js';
import { fmt, percentile } from './stats.js';

const MESSAGES = 100_000;
const PEOPLE = 10;
const SESSIONS = 1000;
const QUERIES = 200;
const BATCH = 500;
const TURNS = 40;

/** A fixed vocabulary: a few common words, many rarer ones, so queries match from a handful to thousands of rows. */
const COMMON = ['deploy', 'database', 'report', 'server', 'budget', 'meeting', 'invoice', 'release'];
const RARE = Array.from({ length: 4000 }, (_, i) => `term${i.toString(36)}`);

function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function sentence(random: () => number): string {
  const words: string[] = [];
  for (let i = 0; i < 14; i++) words.push(random() < 0.25 ? COMMON[Math.floor(random() * COMMON.length)] : RARE[Math.floor(random() * RARE.length)]);
  return `Please look at the ${words.join(' ')} and tell me what changed.`;
}

const person = (n: number): Person => ({ account: 'slack', id: `U${n}` });


/** Fills search_docs with MESSAGES rows in multi-row inserts (one statement per BATCH rows). */
function fill(db: SqlDb): void {
  const random = rng(42);
  const row = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
  const statement = db.prepare(`INSERT INTO search_docs (account, person, session_id, thread_key, kind, role, source_seq, created_at, text, owner) VALUES ${Array(BATCH).fill(row).join(', ')}`);
  const start = Date.now() - MESSAGES * 1000;
  for (let base = 0; base < MESSAGES; base += BATCH) {
    const values: Array<string | number> = [];
    for (let i = base; i < base + BATCH; i++) {
      const session = i % SESSIONS;
      const who = person(session % PEOPLE);
      values.push(who.account, who.id, `s-bench-${session}`, `slack:T:C:${session}`, 'message', i % 2 ? 'assistant' : 'user', i, start + i * 1000, sentence(random), ownerToken(who));
    }
    db.transaction(() => statement.run(...values));
  }
}

function queries(): string[] {
  const random = rng(7);
  const out: string[] = [];
  for (let i = 0; i < QUERIES; i++) {
    const pick = i % 3;
    if (pick === 0) out.push(RARE[Math.floor(random() * RARE.length)]);
    else if (pick === 1) out.push(`${COMMON[Math.floor(random() * COMMON.length)]} ${RARE[Math.floor(random() * RARE.length)]}`);
    else out.push(COMMON[Math.floor(random() * COMMON.length)]);
  }
  return out;
}

function timed(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

async function searchBench(name: string, location: StateLocation): Promise<void> {
  const store = SessionStore.open(location, { logger: silentLogger() });
  try {
    const db = store.database;
    const filling = timed(() => fill(db));
    // What autovacuum does after a bulk load: the planner's statistics.
    if (db.engine === 'postgres') db.exec('ANALYZE search_docs');
    const roundTrip = percentile(Array.from({ length: 50 }, () => timed(() => db.prepare('SELECT 1 AS one').get())), 50);
    const index = new SearchIndex(db);
    const asker = person(3);
    // A plain scan: every word must appear, the same person's rows, newest first.
    const like = (query: string) => {
      const words = query.split(' ');
      const where = words.map(() => 'text LIKE ?').join(' AND ');
      return db
        .prepare(`SELECT session_id, thread_key, text FROM search_docs WHERE account = ? AND person = ? AND ${where} ORDER BY seq DESC LIMIT 60`)
        .all(asker.account, asker.id, ...words.map((word) => `%${word}%`));
    };
    const list = queries();
    for (const query of list.slice(0, 20)) {
      index.search(asker, query, { limit: 3 });
      like(query);
    }
    const fts = list.map((query) => timed(() => index.search(asker, query, { limit: 3 })));
    const scan = list.map((query) => timed(() => like(query)));
    const p = (values: number[], at: number) => fmt(percentile(values, at), 3);
    console.log(
      `session_search on ${name}, ${MESSAGES.toLocaleString('en-US')} messages (${PEOPLE} people, ${SESSIONS} sessions; filled in ${fmt(filling / 1000, 1)} s), ${QUERIES} queries for one person: ` +
        `full-text p50 ${p(fts, 50)} ms, p99 ${p(fts, 99)} ms; plain LIKE scan p50 ${p(scan, 50)} ms, p99 ${p(scan, 99)} ms ` +
        `(LIKE / full-text: ${fmt(percentile(scan, 50) / percentile(fts, 50), 1)}× at p50, ${fmt(percentile(scan, 99) / percentile(fts, 99), 1)}× at p99; ` +
        `a SELECT 1 through the store's connection: ${fmt(roundTrip, 3)} ms)`,
    );
  } finally {
    store.close();
  }
}

/** A person with nearly full notes: the prompt carries about 3,400 characters of them. */
function seedNotes(stateDb: string, settings: MemorySettings): void {
  const store = SessionStore.open(stateDb, { logger: silentLogger() });
  try {
    const notes = new MemoryNotes(new NotesStore(store.database, silentLogger()), () => settings);
    const who = person(1);
    for (let i = 0; i < 20; i++) notes.add(who, 'memory', `Fact ${i}: the person prefers concise answers about topic ${i} with examples.`);
    for (let i = 0; i < 12; i++) notes.add(who, 'user', `Preference ${i}: metric units, British spelling, item ${i}.`);
  } finally {
    store.close();
  }
}

/** A model in this process that answers at once: what is left of a turn is the agent's own work. */
function instantModel(): ModelClient {
  return {
    model: 'bench-model',
    async complete(): Promise<ModelReply> {
      return { content: 'Noted.', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 100, completionTokens: 2 } };
    },
  };
}

async function turnTime(memoryOn: boolean): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-memory-'));
  try {
    const config = validateConfig(
      { model: { name: 'bench-model', context_window: 32_000 }, terminal: { cwd: home }, memory: { memory_enabled: memoryOn, user_profile_enabled: memoryOn } },
      'bench',
    ).config;
    const logger = silentLogger();
    const paths = hermesPaths(home);
    if (memoryOn) seedNotes(paths.stateDb, config.memory);
    const agent = new Agent({
      config,
      paths,
      logger,
      registry: new ToolRegistry([]),
      modelClient: instantModel(),
      contextWindows: new ContextWindows({ model: config.model, logger, listModels: async () => ({ ids: [], windows: new Map() }) }),
    });
    const user = memoryOn ? { id: 'U1', platform: 'slack' } : undefined;
    const times: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const started = performance.now();
      await agent.runTurn({ sessionKey: 'bench', text: `message ${i} about the deploy and the budget`, ...(user ? { user } : {}) });
      if (i >= 10) times.push(performance.now() - started);
    }
    await agent.close();
    return percentile(times, 50);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  const sqliteHome = mkdtempSync(join(tmpdir(), 'hermes-bench-search-'));
  try {
    await searchBench('SQLite (FTS5)', join(sqliteHome, 'state.db'));
  } finally {
    rmSync(sqliteHome, { recursive: true, force: true });
  }
  const missing = postgresUnavailable();
  if (missing) console.log(`session_search on PostgreSQL: not measured (${missing})`);
  else {
    const server = await startPostgres();
    try {
      await searchBench('PostgreSQL (tsvector, GIN)', { postgres: await server.createDatabase(), from: 'sessions.postgres_url' });
    } finally {
      await server.stop();
    }
  }
  await loadTokenizer();
  await turnTime(false); // warm-up
  const off = await turnTime(false);
  const on = await turnTime(true);
  console.log(`agent's own time per turn (in-process model, ${TURNS - 10} turns measured): memory off ${fmt(off)} ms (baseline), memory on ${fmt(on)} ms (${fmt(on / off)}×)`);
}
