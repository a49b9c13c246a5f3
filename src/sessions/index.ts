export { SessionStore, SessionStoreError, type SessionStoreOptions } from './store.js';
export { MIGRATIONS, POSTGRES_MIGRATIONS, MIGRATION_LOCK_KEY, migrate, migratePostgres } from './migrations.js';
export { openStateDb, type StateDb } from './state-db.js';
export { stateLocationFrom, POSTGRES_URL_VARIABLES, type StateLocation, type PostgresLocation } from './state-location.js';
export { Statements } from './statements.js';
export { StateTables } from './state-tables.js';
export type { SqlDb, SqlStatement, SqlValue } from './sql/index.js';
export { messageProblem, isChatMessage } from './validate.js';
export type { ChatMessage, SessionRecord, ContextRow, ContextEntry, UsageRecord, UsageSummary, ModelUsage, ThreadSettings } from './types.js';
