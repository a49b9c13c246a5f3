import type { CallbackQuery, InlineKeyboardMarkup, Message, User } from 'grammy/types';
import type { InboundMessage } from '../../src/gateway/index.js';
import { APPROVAL_BUTTONS, approvalButtonData, readApprovalButtonData } from '../../src/gateway/approval-buttons.js';
import type { TelegramReplyTarget } from './adapter.js';

/** The inline keyboard under one approval request: the shared buttons in two rows, so the labels fit a phone. */
export function approvalKeyboard(requestId: string): InlineKeyboardMarkup {
  const buttons = APPROVAL_BUTTONS.map((button) => ({ text: button.label, callback_data: approvalButtonData(requestId, button.choice) }));
  return { inline_keyboard: [buttons.slice(0, 2), buttons.slice(2)] };
}

/** The session key of a chat, or of a forum topic in it. */
export function telegramThreadKey(chatId: number, topic: number | undefined): string {
  return topic !== undefined ? `telegram:${chatId}:${topic}` : `telegram:${chatId}`;
}

/**
 * The press of an approval button as a message from the user who pressed, in the chat and
 * forum topic of the button message, with empty text and the typed answer (request id and
 * choice), so it is authorized like anything that user types. Undefined when the press is not
 * ours, or when Telegram no longer shows us the message (older than 48 hours: no topic to route by).
 */
export function pressToInbound(query: CallbackQuery, platform: string): InboundMessage<TelegramReplyTarget> | undefined {
  const press = readApprovalButtonData(query.data);
  const message = query.message;
  if (!press || !message || message.date === 0 || query.from.is_bot) return undefined;
  // The press has no message of its own; the callback query's id is unique per press.
  return { ...inboundFrom(message, query.from, '', `callback:${query.id}`, platform), approval: press };
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
