/**
 * The PostgreSQL texts of the schema versions in migrations.ts, one for one (version n here
 * is version n there). SQLite's AUTOINCREMENT is BIGSERIAL, its ms timestamps BIGINT (read
 * back as numbers: see sql/postgres-worker.ts).
 * Never edit a shipped entry: append a new one, in both lists.
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (
     seq BIGSERIAL PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     key TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     interrupted_reason TEXT,
     passthrough TEXT NOT NULL DEFAULT '[]'
   );
   CREATE INDEX sessions_by_key ON sessions (key, seq);
   CREATE TABLE messages (
     seq BIGSERIAL PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions (id),
     created_at BIGINT NOT NULL,
     message TEXT NOT NULL
   );
   CREATE INDEX messages_by_session ON messages (session_id, seq);`,
  `CREATE TABLE context (
     seq BIGSERIAL PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions (id),
     message TEXT NOT NULL,
     tokens INTEGER NOT NULL DEFAULT -1
   );
   CREATE INDEX context_by_session ON context (session_id, seq);
   INSERT INTO context (session_id, message) SELECT session_id, message FROM messages ORDER BY seq;
   ALTER TABLE sessions ADD COLUMN context_rev INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE usage (
     seq BIGSERIAL PRIMARY KEY,
     session_id TEXT NOT NULL REFERENCES sessions (id),
     created_at BIGINT NOT NULL,
     kind TEXT NOT NULL,
     model TEXT NOT NULL,
     calls INTEGER NOT NULL,
     prompt_tokens BIGINT NOT NULL,
     completion_tokens BIGINT NOT NULL,
     estimated INTEGER NOT NULL
   );
   CREATE INDEX usage_by_session ON usage (session_id, seq);
   CREATE TABLE thread_settings (
     key TEXT PRIMARY KEY,
     settings TEXT NOT NULL,
     updated_at BIGINT NOT NULL
   );`,
  // rowid: SQLite's implicit row number, made explicit, so "the latest turn" orders alike on both.
  `CREATE TABLE outbox_turns (
     id TEXT PRIMARY KEY,
     rowid BIGSERIAL NOT NULL,
     kind TEXT NOT NULL,
     platform TEXT NOT NULL,
     thread_key TEXT NOT NULL,
     target TEXT NOT NULL,
     input TEXT NOT NULL,
     state TEXT NOT NULL,
     status TEXT,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL
   );
   CREATE INDEX outbox_turns_by_thread ON outbox_turns (thread_key, created_at);
   CREATE INDEX outbox_turns_by_state ON outbox_turns (state);
   CREATE TABLE outbox_parts (
     seq BIGSERIAL PRIMARY KEY,
     turn_id TEXT NOT NULL REFERENCES outbox_turns (id) ON DELETE CASCADE,
     text TEXT NOT NULL,
     state TEXT NOT NULL,
     message_id TEXT,
     attempts INTEGER NOT NULL DEFAULT 0,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL
   );
   CREATE INDEX outbox_parts_by_turn ON outbox_parts (turn_id, seq);
   CREATE INDEX outbox_parts_by_state ON outbox_parts (state);`,
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
     created_at BIGINT NOT NULL,
     next_run_at BIGINT
   );
   CREATE INDEX cron_jobs_by_thread ON cron_jobs (thread_key);
   CREATE TABLE cron_runs (
     seq BIGSERIAL PRIMARY KEY,
     job_id TEXT NOT NULL REFERENCES cron_jobs (id) ON DELETE CASCADE,
     started_at BIGINT NOT NULL,
     finished_at BIGINT,
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
     set_at BIGINT NOT NULL
   );`,
  // 5: a home job's home channel, recorded when the job is made, so a later /sethome does not
  // redirect its output. Jobs made before keep the home they were made under when it has not
  // moved since; where it has (or none was set then) it stays NULL and they post in their own thread.
  `ALTER TABLE cron_jobs ADD COLUMN home_target TEXT;
   UPDATE cron_jobs SET home_target = (
     SELECT h.target FROM cron_homes h WHERE h.platform = cron_jobs.platform AND h.set_at <= cron_jobs.created_at
   ) WHERE deliver = 'home';`,
  // 6: memory per person (src/memory): notes, and the search index with its tsvector.
  `CREATE TABLE memory_notes (
     account TEXT NOT NULL,
     person TEXT NOT NULL,
     target TEXT NOT NULL,
     entries TEXT NOT NULL,
     updated_at BIGINT NOT NULL,
     PRIMARY KEY (account, person, target)
   );
   CREATE TABLE search_docs (
     seq BIGSERIAL PRIMARY KEY,
     account TEXT NOT NULL,
     person TEXT NOT NULL,
     session_id TEXT NOT NULL,
     thread_key TEXT NOT NULL,
     kind TEXT NOT NULL,
     role TEXT NOT NULL,
     source_seq BIGINT NOT NULL,
     created_at BIGINT NOT NULL,
     text TEXT NOT NULL,
     owner TEXT NOT NULL,
     tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED
   );
   CREATE UNIQUE INDEX search_docs_by_source ON search_docs (session_id, kind, source_seq, account, person);
   CREATE INDEX search_docs_by_person ON search_docs (account, person, created_at);
   CREATE INDEX search_docs_tsv ON search_docs USING GIN (tsv);`,
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
  `ALTER TABLE usage ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;`,
];
