import type { CallbackQuery, InlineKeyboardMarkup, Message, User } from 'grammy/types';
import type { InboundMessage } from '../../src/gateway/index.js';
import type { TelegramReplyTarget } from './adapter.js';

/** `callback_data` of the approval buttons and the command each press stands for; the prefix keeps other bots' data apart. */
export const APPROVAL_BUTTONS: ReadonlyMap<string, string> = new Map([
  ['hermes:approve', '/approve'],
  ['hermes:approve:session', '/approve session'],
  ['hermes:approve:always', '/approve always'],
  ['hermes:deny', '/deny'],
]);

/** The inline keyboard under an approval request: two rows, so the labels fit a phone. */
export const APPROVAL_KEYBOARD: InlineKeyboardMarkup = {
  inline_keyboard: [
    [
      { text: 'Approve once', callback_data: 'hermes:approve' },
      { text: 'This session', callback_data: 'hermes:approve:session' },
    ],
    [
      { text: 'Always', callback_data: 'hermes:approve:always' },
      { text: 'Deny', callback_data: 'hermes:deny' },
    ],
  ],
};

/** The session key of a chat, or of a forum topic in it. */
export function telegramThreadKey(chatId: number, topic: number | undefined): string {
  return topic !== undefined ? `telegram:${chatId}:${topic}` : `telegram:${chatId}`;
}

/** What a press of one of our buttons asks for, or undefined for data that is not ours. */
export function approvalCommand(data: string | undefined): string | undefined {
  return data === undefined ? undefined : APPROVAL_BUTTONS.get(data);
}

/**
 * The press of an approval button as the message the gateway expects (`/approve`,
 * `/approve session`, `/approve always` or `/deny`) from the user who pressed, in the chat and forum topic of the button message, so it is
 * authorized like anything that user types. Undefined when the press is not ours, or when
 * Telegram no longer shows us the message (older than 48 hours: no topic to route by).
 */
export function pressToInbound(query: CallbackQuery, platform: string): InboundMessage<TelegramReplyTarget> | undefined {
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
export function inboundFrom(message: Message, from: User, text: string, messageId: string, platform: string): InboundMessage<TelegramReplyTarget> {
  const isPrivate = message.chat.type === 'private';
  const topic = message.is_topic_message ? message.message_thread_id : undefined;
  const threadKey = telegramThreadKey(message.chat.id, topic);
  const replyTo: TelegramReplyTarget = {
    threadKey,
    chatId: message.chat.id,
    ...(topic !== undefined ? { messageThreadId: topic } : {}),
    ...(!isPrivate ? { replyToMessageId: message.message_id } : {}),
    messageId: message.message_id,
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
