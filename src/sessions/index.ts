export { SessionStore, SessionStoreError, type SessionStoreOptions } from './store.js';
export { MIGRATIONS, migrate } from './migrations.js';
export { messageProblem, isChatMessage } from './validate.js';
export type { ChatMessage, SessionRecord } from './types.js';
