import type Database from 'better-sqlite3';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.js';
import type { PostgresDb } from './sql/index.js';

/**
 * Schema versions, applied in order; `PRAGMA user_version` records how many ran.
 * Never edit a shipped entry: append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     key TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     interrupted_reason TEXT,
     passthrough TEXT NOT NULL DEFAULT '[]'
   );
   CREATE INDEX sessions_by_key ON sessions (key, seq);
   CREATE TABLE messages (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     session_id TEXT NOT NULL REFERENCES sessions (id),
     created_at INTEGER NOT NULL,
     message TEXT NOT NULL
   );
   CREATE INDEX messages_by_session ON messages (session_id, seq);`,
  // 2: the model's view of each session (compaction rewrites it; the messages table keeps everything),
  // token usage per turn, and per-thread settings (/model, /verbose).
  `CREATE TABLE context (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     session_id TEXT NOT NULL REFERENCES sessions (id),
     message TEXT NOT NULL,
     tokens INTEGER NOT NULL DEFAULT -1
   );
   CREATE INDEX context_by_session ON context (session_id, seq);
   INSERT INTO context (session_id, message) SELECT session_id, message FROM messages ORDER BY seq;
   ALTER TABLE sessions ADD COLUMN context_rev INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE usage (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     session_id TEXT NOT NULL REFERENCES sessions (id),
     created_at INTEGER NOT NULL,
     kind TEXT NOT NULL,
     model TEXT NOT NULL,
     calls INTEGER NOT NULL,
     prompt_tokens INTEGER NOT NULL,
     completion_tokens INTEGER NOT NULL,
     estimated INTEGER NOT NULL
   );
   CREATE INDEX usage_by_session ON usage (session_id, seq);
   CREATE TABLE thread_settings (
     key TEXT PRIMARY KEY,
     settings TEXT NOT NULL,
     updated_at INTEGER NOT NULL
   );`,
  // 3: the gateway's outbox: every reply part is written before it is sent and marked once the
  // platform confirmed it, so a 429 or a restart neither loses nor doubles it.
  `CREATE TABLE outbox_turns (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     platform TEXT NOT NULL,
     thread_key TEXT NOT NULL,
     target TEXT NOT NULL,
     input TEXT NOT NULL,
     state TEXT NOT NULL,
     status TEXT,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX outbox_turns_by_thread ON outbox_turns (thread_key, created_at);
   CREATE INDEX outbox_turns_by_state ON outbox_turns (state);
   CREATE TABLE outbox_parts (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     turn_id TEXT NOT NULL REFERENCES outbox_turns (id) ON DELETE CASCADE,
     text TEXT NOT NULL,
     state TEXT NOT NULL,
     message_id TEXT,
     attempts INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX outbox_parts_by_turn ON outbox_parts (turn_id, seq);
   CREATE INDEX outbox_parts_by_state ON outbox_parts (state);`,
  // 4: scheduled jobs (src/cron): each job, its runs (the run's outcome apart from its delivery), and
  // each platform's home channel (/sethome).
  `CREATE TABLE cron_jobs (
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
     created_at INTEGER NOT NULL,
     next_run_at INTEGER
   );
   CREATE INDEX cron_jobs_by_thread ON cron_jobs (thread_key);
   CREATE TABLE cron_runs (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     job_id TEXT NOT NULL REFERENCES cron_jobs (id) ON DELETE CASCADE,
     started_at INTEGER NOT NULL,
     finished_at INTEGER,
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
     set_at INTEGER NOT NULL
   );`,
  // 5: a home job's home channel, recorded when the job is made, so a later /sethome does not
  // redirect its output. Jobs made before keep the home they were made under when it has not
  // moved since; where it has (or none was set then) it stays NULL and they post in their own thread.
  `ALTER TABLE cron_jobs ADD COLUMN home_target TEXT;
   UPDATE cron_jobs SET home_target = (
     SELECT h.target FROM cron_homes h WHERE h.platform = cron_jobs.platform AND h.set_at <= cron_jobs.created_at
   ) WHERE deliver = 'home';`,
  // 6: memory per person (src/memory): each person's two bounded notes, and the full-text index
  // session_search reads, one row per message or summary and the person it belongs to.
  `CREATE TABLE memory_notes (
     account TEXT NOT NULL,
     person TEXT NOT NULL,
     target TEXT NOT NULL,
     entries TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (account, person, target)
   );
   CREATE TABLE search_docs (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     account TEXT NOT NULL,
     person TEXT NOT NULL,
     session_id TEXT NOT NULL,
     thread_key TEXT NOT NULL,
     kind TEXT NOT NULL,
     role TEXT NOT NULL,
     source_seq INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     text TEXT NOT NULL,
     owner TEXT NOT NULL
   );
   CREATE UNIQUE INDEX search_docs_by_source ON search_docs (session_id, kind, source_seq, account, person);
   CREATE INDEX search_docs_by_person ON search_docs (account, person, created_at);
   -- owner: one token naming (account, person), so the full-text match itself keeps to one person's rows.
   CREATE VIRTUAL TABLE search_docs_fts USING fts5(text, owner, content='search_docs', content_rowid='seq', tokenize='unicode61 remove_diacritics 2');
   CREATE TRIGGER search_docs_added AFTER INSERT ON search_docs BEGIN
     INSERT INTO search_docs_fts (rowid, text, owner) VALUES (new.seq, new.text, new.owner);
   END;
   CREATE TRIGGER search_docs_removed AFTER DELETE ON search_docs BEGIN
     INSERT INTO search_docs_fts (search_docs_fts, rowid, text, owner) VALUES ('delete', old.seq, old.text, old.owner);
   END;`,
  // 7: pairing (src/pairing): the codes strangers wait with, the people an owner approved, and
  // the wrong codes tried (the brute-force limit), kept where every instance reads them.
  `CREATE TABLE pairing_requests (
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
  `ALTER TABLE usage ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;`,
];

/**
 * Brings the database up to the latest schema. Runs inside an IMMEDIATE transaction and
 * re-reads the version there, so two processes opening one fresh state.db do not both migrate.
 */
export function migrate(db: Database.Database): number {
  const apply = db.transaction(() => {
    let version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new Error(
        `state.db has schema version ${version}, newer than this hermes-gateway knows (${MIGRATIONS.length}); upgrade hermes-gateway`,
      );
    }
    for (; version < MIGRATIONS.length; version++) db.exec(MIGRATIONS[version]);
    db.pragma(`user_version = ${version}`);
    return version;
  });
  return apply.immediate();
}

/** The advisory lock the PostgreSQL migration runs under (a constant: "hermes-gateway schema"). */
export const MIGRATION_LOCK_KEY = 0x48657273636d; // "Herscm"

/** How long an instance waits for another's migration before it gives up. */
const MIGRATION_WAIT_MS = 120_000;

/**
 * Brings a PostgreSQL database up to the latest schema: the same versions as SQLite's, kept in
 * a `schema_version` table (a row per version applied). Runs in one transaction under an
 * advisory lock, so several instances starting at once wait for each other and migrate once.
 */
export function migratePostgres(db: PostgresDb): number {
  return db.transaction(() => {
    // Another instance may be migrating: wait for it longer than for an ordinary writer's lock.
    db.exec(`SET LOCAL lock_timeout = ${MIGRATION_WAIT_MS}`);
    db.query('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
    db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const row = db.query('SELECT COALESCE(MAX(version), 0) AS version FROM schema_version', []).rows[0];
    let version = Number(row?.version ?? 0);
    if (version > POSTGRES_MIGRATIONS.length) {
      throw new Error(
        `the PostgreSQL database has schema version ${version}, newer than this hermes-gateway knows (${POSTGRES_MIGRATIONS.length}); upgrade hermes-gateway`,
      );
    }
    for (; version < POSTGRES_MIGRATIONS.length; version++) {
      db.exec(POSTGRES_MIGRATIONS[version]);
      db.query('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)', [version + 1, Date.now()]);
    }
    return version;
  });
}
