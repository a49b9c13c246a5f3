import { InputFile, type Api } from 'grammy';
import type { OutboundVoice, VoiceCapability } from '../../src/gateway/index.js';
import type { TelegramReplyTarget } from './adapter.js';

/** Voice notes out: sendVoice with the OGG Opus clip (Telegram shows it as a voice message with its length). */
export function telegramVoice(api: () => Api): VoiceCapability<TelegramReplyTarget> {
  return {
    async sendVoice(target, voice: OutboundVoice) {
      const sent = await api().sendVoice(target.chatId, new InputFile(voice.ogg, 'answer.ogg'), {
        duration: Math.max(1, Math.round(voice.durationSecs)),
        ...(target.messageThreadId !== undefined ? { message_thread_id: target.messageThreadId } : {}),
        ...(target.replyToMessageId !== undefined ? { reply_parameters: { message_id: target.replyToMessageId, allow_sending_without_reply: true } } : {}),
      });
      return { messageId: String(sent.message_id) };
    },
  };
}
