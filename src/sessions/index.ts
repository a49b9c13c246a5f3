export { SessionStore, SessionStoreError, type SessionStoreOptions } from './store.js';
export { MIGRATIONS, migrate } from './migrations.js';
export { openStateDb, type StateDb } from './state-db.js';
export { Statements } from './statements.js';
export { messageProblem, isChatMessage } from './validate.js';
export type { ChatMessage, SessionRecord, ContextRow, ContextEntry, UsageRecord, UsageSummary, ModelUsage, ThreadSettings } from './types.js';
