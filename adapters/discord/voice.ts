import { MessageFlags, Routes, type APIMessage, type Client } from 'discord.js';
import type { OutboundVoice, VoiceCapability } from '../../src/gateway/index.js';
import type { DiscordReplyTarget } from './inbound.js';

/** The file name Discord's clients give a voice message. */
const VOICE_FILE = 'voice-message.ogg';

/**
 * Voice notes out: a message flagged IS_VOICE_MESSAGE (1 << 13) with one OGG Opus attachment
 * that carries its `duration_secs` and `waveform`, as Discord's clients send them (no text).
 */
export function discordVoice(rest: () => Client['rest']): VoiceCapability<DiscordReplyTarget> {
  return {
    async sendVoice(target, voice: OutboundVoice) {
      const message = (await rest().post(Routes.channelMessages(target.channelId), {
        body: { flags: MessageFlags.IsVoiceMessage, attachments: [{ id: 0, filename: VOICE_FILE, duration_secs: voice.durationSecs, waveform: voice.waveform }] },
        files: [{ name: VOICE_FILE, data: voice.ogg, contentType: 'audio/ogg' }],
      })) as APIMessage;
      return { messageId: message.id };
    },
  };
}
