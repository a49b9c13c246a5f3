export { TelegramAdapter, createTelegramAdapter, type TelegramAdapterOptions, type TelegramReplyTarget, type TelegramWebhookOptions } from './adapter.js';
export { markdownToTelegramHtml, escapeHtml } from './html.js';
