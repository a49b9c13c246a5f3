export type { SqlDb, SqlStatement, SqlValue, RunResult, TransactionMode } from './types.js';
export { SqliteDb } from './sqlite-db.js';
export { PostgresDb, PostgresError, WRITE_LOCK_KEY } from './postgres-db.js';
export { describePostgresUrl, redactPassword } from './postgres-url.js';
export { numberPlaceholders } from './placeholders.js';
