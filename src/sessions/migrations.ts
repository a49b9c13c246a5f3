import type Database from 'better-sqlite3';
import { schemaSteps } from './schema-steps.js';
import type { PostgresDb } from './sql/index.js';

/** SQLite's schema versions, applied in order; `PRAGMA user_version` records how many ran. */
export const MIGRATIONS: readonly string[] = schemaSteps('sqlite');

/** PostgreSQL's texts of the same versions (version n here is version n there). */
export const POSTGRES_MIGRATIONS: readonly string[] = schemaSteps('postgres');

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
