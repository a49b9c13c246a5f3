import { errorMessage } from '../shared/errors.js';
import { PRIVATE_FILE_MODE, privateFile, restrictMode } from '../shared/private-files.js';
import { migrate, migratePostgres } from './migrations.js';
import { PostgresDb, SqliteDb, describePostgresUrl, redactPassword, type SqlDb } from './sql/index.js';
import type { StateLocation } from './state-location.js';
import { SessionStoreError } from './store.js';

export type StateDb = SqlDb;

/**
 * A connection of its own to the state database, set up and migrated: SQLite (a file, or
 * `:memory:` for a private one: WAL, a busy timeout, foreign keys) or PostgreSQL (one
 * connection; a writer waits `busyTimeoutMs` for another's lock). The session store, the
 * outbox and the job store each open one.
 */
export function openStateDb(location: StateLocation, options: { busyTimeoutMs?: number } = {}): StateDb {
  if (typeof location !== 'string') return openPostgres(location.postgres, location.from, options.busyTimeoutMs);
  let db: SqliteDb | undefined;
  const onDisk = location !== ':memory:' && location !== '';
  try {
    // Sessions hold whole conversations: the file is made 0600 before SQLite opens it (its
    // -wal and -shm take the file's mode), and an older looser file and its WAL files are tightened.
    if (onDisk) privateFile(location);
    db = new SqliteDb(location, options);
    migrate(db.raw);
    if (onDisk) for (const suffix of ['-wal', '-shm']) restrictMode(`${location}${suffix}`, PRIVATE_FILE_MODE);
    return db;
  } catch (error) {
    db?.close();
    throw new SessionStoreError(`cannot open the state database ${location}: ${errorMessage(error)}`, { cause: error });
  }
}

function openPostgres(url: string, from: string, lockTimeoutMs: number | undefined): StateDb {
  let db: PostgresDb | undefined;
  try {
    db = new PostgresDb(url, lockTimeoutMs === undefined ? {} : { lockTimeoutMs });
    migratePostgres(db);
    return db;
  } catch (error) {
    db?.close();
    // No cause: it could hold the address as written, password and all.
    throw new SessionStoreError(
      `${from}: cannot open the PostgreSQL state database (sessions.store: postgres): ${redactPassword(errorMessage(error), url)}; check ${from} and that PostgreSQL runs at ${describePostgresUrl(url)}`,
    );
  }
}
