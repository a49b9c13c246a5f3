import type { HermesConfig } from '../config/index.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { listenerFor, speakableText, speakerFor, transcriberFor, type Listener, type Speaker } from '../voice/index.js';
import type { PlatformAdapter, ReplyTarget } from './types.js';

/** Voice in for a turn's files: a listener while `stt:` is set, else nothing (files are saved as ever). */
export function voiceInput(config: HermesConfig, env: NodeJS.ProcessEnv): { listen?: Listener } {
  const transcriber = transcriberFor(config, env);
  return transcriber ? { listen: listenerFor(transcriber) } : {};
}

/** Voice out for a turn whose thread said `/voice on` or `only`. */
export interface VoiceOut {
  mode: 'on' | 'only';
  speaker: Speaker;
  /** `tts.max_chars`. */
  maxChars: number;
  /** Ends speech at shutdown (a new message does not: the answer it speaks is already written). */
  signal: AbortSignal;
}

export function voiceOutput(config: HermesConfig, env: NodeJS.ProcessEnv, mode: 'on' | 'only' | undefined, signal: AbortSignal): VoiceOut | undefined {
  return mode ? { mode, speaker: speakerFor(config, env), maxChars: config.tts.max_chars, signal } : undefined;
}

/**
 * Speaks `answer` (code blocks and long tables left out) as the platform's voice message.
 * Resolves with why it could not (nothing to say aloud, no voice here, the engine failed), or undefined once sent.
 */
export async function sendSpokenAnswer(adapter: PlatformAdapter, replyTo: ReplyTarget, answer: string, voice: VoiceOut, logger: Logger): Promise<string | undefined> {
  if (!adapter.voice) return 'voice notes cannot be sent on this platform';
  const text = speakableText(answer, voice.maxChars);
  if (!/[\p{L}\p{N}]/u.test(text)) return 'the answer has nothing to read aloud';
  const missing = voice.speaker.unavailable();
  if (missing) return missing;
  try {
    const clip = await voice.speaker.speak(text, voice.signal);
    await adapter.voice.sendVoice(replyTo, clip);
    return undefined;
  } catch (error) {
    logger.warn({ err: error, engine: voice.speaker.engine }, 'could not send the answer as a voice note');
    return errorMessage(error).split('\n')[0].slice(0, 300);
  }
}
