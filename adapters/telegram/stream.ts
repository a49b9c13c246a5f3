import { GrammyError, HttpError, type Api } from 'grammy';
import { editedMessage, type DeliveryVerdict, type PlatformAdapter, type StreamedMessage } from '../../src/gateway/index.js';
import type { TelegramReplyTarget } from './adapter.js';
import { markdownToTelegramHtml } from './html.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Telegram asks for about one message update a second per chat. */
export const TELEGRAM_EDIT_INTERVAL_MS = 1000;

let nextDraftId = 1 + Math.floor(Math.random() * 1_000_000);

/** What a draft needs from the adapter: the Bot API, the final send, and where drafts turned out not to work. */
export interface DraftHost {
  api: Api;
  adapter: PlatformAdapter<TelegramReplyTarget>;
  send(target: TelegramReplyTarget, text: string): Promise<{ messageId: string }>;
  /** Called when Telegram refuses drafts for this bot or chat: later replies there send and edit. */
  refused(chatId: number, error: unknown): void;
}

/**
 * One part of a reply in a private chat, streamed as a Telegram message draft
 * (`sendMessageDraft`, animated while the model writes) and persisted by `sendMessage` with
 * the final text: that one message is the answer, the draft goes. When Telegram refuses the
 * draft (an older Bot API, a chat it does not allow drafts in) the part falls back to a
 * message sent once and edited.
 */
export function draftMessage(host: DraftHost, target: TelegramReplyTarget): StreamedMessage {
  const draftId = nextDraftId++ % 2_147_483_647 || 1;
  let fallback: StreamedMessage | undefined;
  let messageId: string | undefined;
  const thread = target.messageThreadId !== undefined ? { message_thread_id: target.messageThreadId } : {};
  return {
    minIntervalMs: TELEGRAM_EDIT_INTERVAL_MS,
    get messageId() {
      return fallback?.messageId ?? messageId;
    },
    async update(text) {
      if (fallback) return fallback.update(text);
      try {
        await host.api.sendMessageDraft(target.chatId, draftId, markdownToTelegramHtml(text), { ...thread, parse_mode: 'HTML' });
      } catch (error) {
        if (!(error instanceof GrammyError) || (error.error_code !== 400 && error.error_code !== 404)) throw error;
        if (error.description.includes("can't parse entities")) {
          await host.api.sendMessageDraft(target.chatId, draftId, text, thread);
          return;
        }
        host.refused(target.chatId, error);
        fallback = editedMessage(host.adapter, target);
        // The refused draft was an update to this chat too: the send waits a full interval from
        // its answer (the throttler spaces calls from their start, which a slow answer eats into).
        await sleep(TELEGRAM_EDIT_INTERVAL_MS);
        await fallback.update(text);
      }
    },
    async finish(text) {
      if (fallback) return fallback.finish(text);
      const sent = await host.send(target, text);
      messageId = sent.messageId;
      return sent;
    },
    async discard() {
      // An empty draft shows "Thinking…"; a draft nobody renews goes by itself within 30 s.
    },
  };
}

/** Whether a failed Bot API call is worth another try: flood control after its retry_after, server errors and network failures. */
export function telegramVerdict(error: unknown): DeliveryVerdict {
  if (error instanceof HttpError) return { retry: true };
  if (!(error instanceof GrammyError)) return { retry: true };
  if (error.error_code === 429) return { retry: true, afterMs: (error.parameters.retry_after ?? 1) * 1000 };
  return { retry: error.error_code >= 500 };
}
