export { WebAdapter, createWebAdapter, createWebChat, type WebAdapterOptions, type WebSharing } from './web-adapter.js';
export { LiveHub, webLiveEvents, type LiveChannel, type LiveListener } from './live-hub.js';
export { WebChatError, isLoopbackHost, assertSafeBinding, TOKEN_COOKIE, tokenCookieName } from './access.js';
export { resolveWebLogin, tokenFilePath, type WebLogin } from './login.js';
export { TranscriptStore, isThreadId, type TranscriptSharing } from './transcript.js';
export type { WebEntry, WebThreadSummary, LiveEvent, ToolStatus } from './types.js';
export { WEB_THREAD, webThreadKey } from './thread-ref.js';
