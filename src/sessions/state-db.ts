import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { errorMessage } from '../shared/errors.js';
import { migrate } from './migrations.js';
import { SessionStoreError } from './store.js';

export type StateDb = Database.Database;

/**
 * A connection of its own to state.db (`:memory:` for a private one), set up as the session
 * store sets up its own (WAL, a busy timeout, foreign keys) and migrated. The gateway's outbox
 * writes through one of these beside the agent's session store.
 */
export function openStateDb(file: string, options: { busyTimeoutMs?: number } = {}): StateDb {
  let db: Database.Database | undefined;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    db = new Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  } catch (error) {
    db?.close();
    throw new SessionStoreError(`cannot open the state database ${file}: ${errorMessage(error)}`, { cause: error });
  }
}
