import { z } from 'zod';
import { threadRef, type ThreadRef } from '../../src/gateway/index.js';
import type { TelegramReplyTarget } from './adapter.js';

const id = z.number().int();

/** `telegram:<chat_id>[:<message_thread_id>]` and the chat to send to. */
const TELEGRAM_TARGET = z.object({
  threadKey: z.string().startsWith('telegram:'),
  chatId: id,
  messageThreadId: id.optional(),
  replyToMessageId: id.optional(),
  messageId: id.optional(),
});

/** A Telegram thread as the outbox keeps it and another instance passes it. */
export const TELEGRAM_THREAD: ThreadRef<TelegramReplyTarget> = threadRef<TelegramReplyTarget>(TELEGRAM_TARGET);
