/**
 * The schema versions, one list for SQLite and PostgreSQL: step n is version n on both. A step
 * writes its SQL once; what differs between the engines is a column type from the dialect, or a
 * line marked `[sqlite]` or `[pg]` that only that engine runs.
 * Never edit a shipped step (test/sessions/shipped-migrations.test.ts holds them): append a new one.
 */

export type Engine = 'sqlite' | 'postgres';

/** The column types the engines spell differently. */
export interface Dialect {
  readonly engine: Engine;
  /** A row number that grows by itself: SQLite's AUTOINCREMENT, PostgreSQL's BIGSERIAL. */
  readonly serial: string;
  /** A millisecond timestamp or another number past 2^31 (SQLite's INTEGER holds 64 bits already). */
  readonly big: string;
}

const DIALECTS: Record<Engine, Dialect> = {
  sqlite: { engine: 'sqlite', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT', big: 'INTEGER' },
  postgres: { engine: 'postgres', serial: 'BIGSERIAL PRIMARY KEY', big: 'BIGINT' },
};

type SchemaStep = (sql: Dialect) => string;

const STEPS: readonly SchemaStep[] = [
  // 1: sessions and every message they hold.
  ({ serial, big }) => `CREATE TABLE sessions (
     seq ${serial},
     id TEXT NOT NULL UNIQUE,
     key TEXT NOT NULL,
     created_at ${big} NOT NULL,
     updated_at ${big} NOT NULL,
     interrupted_reason TEXT,
     passthrough TEXT NOT NULL DEFAULT '[]'
   );
   CREATE INDEX sessions_by_key ON sessions (key, seq);
   CREATE TABLE messages (
     seq ${serial},
     session_id TEXT NOT NULL REFERENCES sessions (id),
     created_at ${big} NOT NULL,
     message TEXT NOT NULL
   );
   CREATE INDEX messages_by_session ON messages (session_id, seq);`,
  // 2: the model's view of each session (compaction rewrites it; the messages table keeps everything),
  // token usage per turn, and per-thread settings (/model, /verbose).
  ({ serial, big }) => `CREATE TABLE context (
     seq ${serial},
     session_id TEXT NOT NULL REFERENCES sessions (id),
     message TEXT NOT NULL,
     tokens INTEGER NOT NULL DEFAULT -1
   );
   CREATE INDEX context_by_session ON context (session_id, seq);
   INSERT INTO context (session_id, message) SELECT session_id, message FROM messages ORDER BY seq;
   ALTER TABLE sessions ADD COLUMN context_rev INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE usage (
     seq ${serial},
     session_id TEXT NOT NULL REFERENCES sessions (id),
     created_at ${big} NOT NULL,
     kind TEXT NOT NULL,
     model TEXT NOT NULL,
     calls INTEGER NOT NULL,
     prompt_tokens ${big} NOT NULL,
     completion_tokens ${big} NOT NULL,
     estimated INTEGER NOT NULL
   );
   CREATE INDEX usage_by_session ON usage (session_id, seq);
   CREATE TABLE thread_settings (
     key TEXT PRIMARY KEY,
     settings TEXT NOT NULL,
     updated_at ${big} NOT NULL
   );`,
  // 3: the gateway's outbox: every reply part is written before it is sent and marked once the
  // platform confirmed it, so a 429 or a restart neither loses nor doubles it. PostgreSQL's rowid:
  // SQLite's implicit row number, made explicit, so "the latest turn" orders alike on both.
  ({ serial, big }) => `CREATE TABLE outbox_turns (
     id TEXT PRIMARY KEY,
[pg]     rowid BIGSERIAL NOT NULL,
     kind TEXT NOT NULL,
     platform TEXT NOT NULL,
     thread_key TEXT NOT NULL,
     target TEXT NOT NULL,
     input TEXT NOT NULL,
     state TEXT NOT NULL,
     status TEXT,
     created_at ${big} NOT NULL,
     updated_at ${big} NOT NULL
   );
   CREATE INDEX outbox_turns_by_thread ON outbox_turns (thread_key, created_at);
   CREATE INDEX outbox_turns_by_state ON outbox_turns (state);
   CREATE TABLE outbox_parts (
     seq ${serial},
     turn_id TEXT NOT NULL REFERENCES outbox_turns (id) ON DELETE CASCADE,
     text TEXT NOT NULL,
     state TEXT NOT NULL,
     message_id TEXT,
     attempts INTEGER NOT NULL DEFAULT 0,
     created_at ${big} NOT NULL,
     updated_at ${big} NOT NULL
   );
   CREATE INDEX outbox_parts_by_turn ON outbox_parts (turn_id, seq);
   CREATE INDEX outbox_parts_by_state ON outbox_parts (state);`,
  // 4: scheduled jobs (src/cron): each job, its runs (the run's outcome apart from its delivery), and
  // each platform's home channel (/sethome).
  ({ serial, big }) => `CREATE TABLE cron_jobs (
     id TEXT PRIMARY KEY,
     thread_key TEXT NOT NULL,
     platform TEXT NOT NULL,
     target TEXT NOT NULL,
     audience TEXT NOT NULL,
     schedule TEXT NOT NULL,
     kind TEXT NOT NULL,
     payload TEXT NOT NULL,
     deliver TEXT NOT NULL,
     state TEXT NOT NULL,
     created_at ${big} NOT NULL,
     next_run_at ${big}
   );
   CREATE INDEX cron_jobs_by_thread ON cron_jobs (thread_key);
   CREATE TABLE cron_runs (
     seq ${serial},
     job_id TEXT NOT NULL REFERENCES cron_jobs (id) ON DELETE CASCADE,
     started_at ${big} NOT NULL,
     finished_at ${big},
     status TEXT NOT NULL,
     output TEXT NOT NULL DEFAULT '',
     delivery TEXT NOT NULL DEFAULT 'none',
     delivery_error TEXT,
     outbox_id TEXT
   );
   CREATE INDEX cron_runs_by_job ON cron_runs (job_id, seq);
   CREATE TABLE cron_homes (
     platform TEXT PRIMARY KEY,
     thread_key TEXT NOT NULL,
     target TEXT NOT NULL,
     set_at ${big} NOT NULL
   );`,
  // 5: a home job's home channel, recorded when the job is made, so a later /sethome does not
  // redirect its output. Jobs made before keep the home they were made under when it has not
  // moved since; where it has (or none was set then) it stays NULL and they post in their own thread.
  () => `ALTER TABLE cron_jobs ADD COLUMN home_target TEXT;
   UPDATE cron_jobs SET home_target = (
     SELECT h.target FROM cron_homes h WHERE h.platform = cron_jobs.platform AND h.set_at <= cron_jobs.created_at
   ) WHERE deliver = 'home';`,
  // 6: memory per person (src/memory): each person's two bounded notes, and the full-text index
  // session_search reads, one row per message or summary and the person it belongs to: on SQLite
  // an FTS5 table kept by triggers, on PostgreSQL a generated tsvector with a GIN index.
  ({ serial, big }) => `CREATE TABLE memory_notes (
     account TEXT NOT NULL,
     person TEXT NOT NULL,
     target TEXT NOT NULL,
     entries TEXT NOT NULL,
     updated_at ${big} NOT NULL,
     PRIMARY KEY (account, person, target)
   );
   CREATE TABLE search_docs (
     seq ${serial},
     account TEXT NOT NULL,
     person TEXT NOT NULL,
     session_id TEXT NOT NULL,
     thread_key TEXT NOT NULL,
     kind TEXT NOT NULL,
     role TEXT NOT NULL,
     source_seq ${big} NOT NULL,
     created_at ${big} NOT NULL,
     text TEXT NOT NULL,
[sqlite]     owner TEXT NOT NULL
[pg]     owner TEXT NOT NULL,
[pg]     tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED
   );
   CREATE UNIQUE INDEX search_docs_by_source ON search_docs (session_id, kind, source_seq, account, person);
   CREATE INDEX search_docs_by_person ON search_docs (account, person, created_at);
[pg]   CREATE INDEX search_docs_tsv ON search_docs USING GIN (tsv);
[sqlite]   -- owner: one token naming (account, person), so the full-text match itself keeps to one person's rows.
[sqlite]   CREATE VIRTUAL TABLE search_docs_fts USING fts5(text, owner, content='search_docs', content_rowid='seq', tokenize='unicode61 remove_diacritics 2');
[sqlite]   CREATE TRIGGER search_docs_added AFTER INSERT ON search_docs BEGIN
[sqlite]     INSERT INTO search_docs_fts (rowid, text, owner) VALUES (new.seq, new.text, new.owner);
[sqlite]   END;
[sqlite]   CREATE TRIGGER search_docs_removed AFTER DELETE ON search_docs BEGIN
[sqlite]     INSERT INTO search_docs_fts (search_docs_fts, rowid, text, owner) VALUES ('delete', old.seq, old.text, old.owner);
[sqlite]   END;`,
  // 7: pairing (src/pairing): the codes strangers wait with, the people an owner approved, and
  // the wrong codes tried (the brute-force limit), kept where every instance reads them.
  // (BIGINT on SQLite too, as shipped: the same 64-bit integer there.)
  () => `CREATE TABLE pairing_requests (
     platform TEXT NOT NULL,
     user_id TEXT NOT NULL,
     user_name TEXT NOT NULL DEFAULT '',
     code TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL,
     PRIMARY KEY (platform, user_id)
   );
   CREATE UNIQUE INDEX pairing_requests_by_code ON pairing_requests (platform, code);
   CREATE TABLE paired_users (
     platform TEXT NOT NULL,
     user_id TEXT NOT NULL,
     user_name TEXT NOT NULL DEFAULT '',
     approved_at BIGINT NOT NULL,
     approved_by TEXT NOT NULL,
     PRIMARY KEY (platform, user_id)
   );
   CREATE TABLE pairing_failures (
     platform TEXT NOT NULL,
     at BIGINT NOT NULL
   );
   CREATE INDEX pairing_failures_by_platform ON pairing_failures (platform, at);`,
  // 8: prompt caching: of each row's prompt tokens, those read from the provider's cache and those written to it.
  () => `ALTER TABLE usage ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;`,
];

const ENGINE_LINE = /^\[(sqlite|pg)\]/;

/** One step's SQL for one engine: the other engine's marked lines dropped, the markers taken off. */
function render(step: SchemaStep, dialect: Dialect): string {
  const mark = dialect.engine === 'sqlite' ? 'sqlite' : 'pg';
  const lines: string[] = [];
  for (const line of step(dialect).split('\n')) {
    const marked = ENGINE_LINE.exec(line);
    if (!marked) lines.push(line);
    else if (marked[1] === mark) lines.push(line.slice(marked[0].length));
  }
  return lines.join('\n');
}

/** Every version's SQL for one engine, in order. */
export function schemaSteps(engine: Engine): readonly string[] {
  return STEPS.map((step) => render(step, DIALECTS[engine]));
}
