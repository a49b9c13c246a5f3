import { execa } from 'execa';
import { APIConnectionTimeoutError, APIError } from 'openai';
import { openAIClient } from '../agent/openai-client.js';
import type { HermesConfig } from '../config/index.js';
import { findExecutable } from '../environments/index.js';
import { errorMessage } from '../shared/errors.js';
import { probeAudio } from './audio-probe.js';
import { toOggOpus, voiceClip, type VoiceClip } from './ogg-voice.js';

/** Most bytes of speech taken from an endpoint (an hour of Opus is far less). */
const SPEECH_MAX_BYTES = 25 * 1024 * 1024;
const ESPEAK_TIMEOUT_MS = 60_000;

export interface Speaker {
  /** Where speech is made, for `/voice` replies: `espeak-ng` or the endpoint's address. */
  readonly engine: string;
  /** Why this speaker cannot speak here (espeak-ng or ffmpeg missing), or undefined when it can. */
  unavailable(): string | undefined;
  /** `text` spoken, as a voice clip; throws a sentence when it cannot. */
  speak(text: string, signal: AbortSignal): Promise<VoiceClip>;
}

/**
 * The speaker `tts:` describes: its OpenAI-compatible /audio/speech endpoint when `base_url` is
 * set and `api_key_env` holds a key, else espeak-ng on this host; ffmpeg makes either OGG Opus.
 */
export function speakerFor(config: HermesConfig, env: NodeJS.ProcessEnv): Speaker {
  const tts = config.tts;
  const apiKey = tts.api_key_env ? env[tts.api_key_env] : undefined;
  if (tts.base_url.trim() && apiKey) {
    const client = openAIClient({ baseUrl: tts.base_url, apiKey, timeoutMs: tts.timeout * 1000 });
    return {
      engine: tts.base_url,
      unavailable: () => (findExecutable('ffmpeg') ? undefined : 'ffmpeg is not installed on the gateway host (it makes the OGG Opus voice notes)'),
      async speak(text, signal) {
        let audio: Buffer;
        try {
          const response = await client.audio.speech.create({ model: tts.model, voice: tts.voice, input: text, response_format: 'opus' }, { signal });
          audio = Buffer.from(await response.arrayBuffer());
        } catch (error) {
          throw new Error(speechFailure(error, tts.timeout));
        }
        if (audio.length > SPEECH_MAX_BYTES) throw new Error('the speech endpoint answered with more audio than a voice note holds');
        const probed = await probeAudio(audio, signal);
        if (!probed.audio) throw new Error(`the speech endpoint's answer is not audio (${probed.reason})`);
        // An endpoint's Opus may come in another container (or be MP3): made a voice note either way.
        return voiceClip(await toOggOpus(audio, signal), signal);
      },
    };
  }
  return {
    engine: 'espeak-ng',
    unavailable: () => {
      const missing = ['espeak-ng', 'ffmpeg'].filter((name) => !findExecutable(name));
      return missing.length > 0 ? `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed on the gateway host (set tts.base_url and tts.api_key_env for a speech endpoint instead)` : undefined;
    },
    async speak(text, signal) {
      // The text goes on stdin, so nothing in it is read as an option.
      const wav = await execa('espeak-ng', ['--stdin', '--stdout'], { input: text, encoding: 'buffer', timeout: ESPEAK_TIMEOUT_MS, cancelSignal: signal });
      return voiceClip(await toOggOpus(Buffer.from(wav.stdout), signal), signal);
    },
  };
}

function speechFailure(error: unknown, timeoutSecs: number): string {
  if (error instanceof APIConnectionTimeoutError) return `the speech endpoint did not answer within ${timeoutSecs} s (tts.timeout)`;
  if (error instanceof APIError && error.status !== undefined) return `the speech endpoint answered HTTP ${error.status}`;
  return `the speech endpoint could not be reached (${errorMessage(error).slice(0, 200)})`;
}
