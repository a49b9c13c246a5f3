import type { CallbackQuery, InlineKeyboardMarkup, Message, User } from 'grammy/types';
import type { InboundMessage } from '../src/gateway/index.js';
import type { TelegramReplyTarget } from './telegram.js';

/** `callback_data` of the two approval buttons; the prefix keeps other bots' data apart. */
export const APPROVE_DATA = 'hermes:approve';
export const DENY_DATA = 'hermes:deny';

/** The inline keyboard under an approval request. */
export const APPROVAL_KEYBOARD: InlineKeyboardMarkup = {
  inline_keyboard: [
    [
      { text: 'Approve', callback_data: APPROVE_DATA },
      { text: 'Deny', callback_data: DENY_DATA },
    ],
  ],
};

/** The session key of a chat, or of a forum topic in it. */
export function telegramThreadKey(chatId: number, topic: number | undefined): string {
  return topic !== undefined ? `telegram:${chatId}:${topic}` : `telegram:${chatId}`;
}

/** What a press of one of our buttons asks for, or undefined for data that is not ours. */
export function approvalCommand(data: string | undefined): '/approve' | '/deny' | undefined {
  if (data === APPROVE_DATA) return '/approve';
  if (data === DENY_DATA) return '/deny';
  return undefined;
}

/**
 * The press of an approval button as the message the gateway expects: `/approve` or `/deny`
 * from the user who pressed, in the chat and forum topic of the button message, so it is
 * authorized like anything that user types. Undefined when the press is not ours, or when
 * Telegram no longer shows us the message (older than 48 hours: no topic to route by).
 */
export function pressToInbound(query: CallbackQuery, platform: string): InboundMessage | undefined {
  const text = approvalCommand(query.data);
  const message = query.message;
  if (!text || !message || message.date === 0 || query.from.is_bot) return undefined;
  // The press has no message of its own; the callback query's id is unique per press.
  return inboundFrom(message, query.from, text, `callback:${query.id}`, platform);
}

/**
 * The InboundMessage for `text` said by `from` in the chat (and forum topic) of `message`.
 * In groups the answer quotes `message`, as replies to typed messages quote them.
 */
export function inboundFrom(message: Message, from: User, text: string, messageId: string, platform: string): InboundMessage {
  const isPrivate = message.chat.type === 'private';
  const topic = message.is_topic_message ? message.message_thread_id : undefined;
  const threadKey = telegramThreadKey(message.chat.id, topic);
  const replyTo: TelegramReplyTarget = {
    threadKey,
    chatId: message.chat.id,
    ...(topic !== undefined ? { messageThreadId: topic } : {}),
    ...(!isPrivate ? { replyToMessageId: message.message_id } : {}),
  };
  return {
    platform,
    threadKey,
    chat: { id: String(message.chat.id), type: isPrivate ? 'dm' : topic !== undefined ? 'thread' : 'group' },
    user: { id: String(from.id), name: from.username ?? from.first_name },
    text,
    messageId,
    replyTo,
  };
}
