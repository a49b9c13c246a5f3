export { WebAdapter, createWebAdapter, createWebChat, threadIdOf, type WebAdapterOptions } from './web-adapter.js';
export { WebChatError, isLoopbackHost, assertSafeBinding, TOKEN_COOKIE } from './access.js';
export { TranscriptStore, isThreadId } from './transcript.js';
export type { WebEntry, WebThreadSummary, LiveEvent, ToolStatus } from './types.js';
