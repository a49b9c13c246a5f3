import { Readable } from 'node:stream';
import type { OutboundVoice, VoiceCapability } from '../../src/gateway/index.js';
import type { SlackReplyTarget } from './inbound.js';

/** The file name of a spoken answer in the thread. */
const VOICE_FILE = 'answer.ogg';

/**
 * Voice notes out: Slack has no voice message a bot can send, so the answer is an OGG Opus
 * audio file uploaded into the thread (files upload, as any file), which Slack plays inline.
 */
export function slackVoice(sendFile: (target: SlackReplyTarget, file: { name: string; mimeType: string; size: number; open(): Promise<Readable> }) => Promise<{ messageId: string }>): VoiceCapability<SlackReplyTarget> {
  return {
    sendVoice: (target, voice: OutboundVoice) =>
      sendFile(target, { name: VOICE_FILE, mimeType: 'audio/ogg', size: voice.ogg.length, open: async () => Readable.from([voice.ogg]) }),
  };
}
