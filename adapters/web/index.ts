export { WebAdapter, createWebAdapter, createWebChat, threadIdOf, type WebAdapterOptions } from './web-adapter.js';
export { WebChatError, isLoopbackHost, assertSafeBinding, TOKEN_COOKIE, tokenCookieName } from './access.js';
export { resolveWebLogin, tokenFilePath, type WebLogin } from './login.js';
export { TranscriptStore, isThreadId } from './transcript.js';
export type { WebEntry, WebThreadSummary, LiveEvent, ToolStatus } from './types.js';
