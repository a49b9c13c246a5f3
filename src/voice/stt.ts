import { APIConnectionTimeoutError, APIError, APIUserAbortError, toFile } from 'openai';
import { z } from 'zod';
import { openAIClient } from '../agent/openai-client.js';
import type { HermesConfig } from '../config/index.js';
import { errorMessage } from '../shared/errors.js';

/** A transcript, or why there is none (a sentence for the model and the sender). */
export type TranscriptOutcome = { ok: true; text: string } | { ok: false; reason: string };

/** One recording to transcribe: its bytes as saved, and the name and type it was saved under. */
export interface Recording {
  bytes: Buffer;
  name: string;
  mimeType: string;
}

export interface Transcriber {
  /** Largest recording sent to the endpoint (`stt.max_mb`), in bytes. */
  readonly maxBytes: number;
  transcribe(recording: Recording, signal: AbortSignal): Promise<TranscriptOutcome>;
}

/** Longest transcript put in the model's message; a longer one is cut (a hostile endpoint could send megabytes). */
export const TRANSCRIPT_MAX_CHARS = 20_000;

/** What an OpenAI-compatible endpoint answers for `response_format: json`. */
const transcriptShape = z.object({ text: z.string() });

/**
 * The transcriber `stt:` describes, through the project's one OpenAI client factory, or
 * undefined while `stt.base_url` is empty (voice in is off; files are saved as ever).
 */
export function transcriberFor(config: HermesConfig, env: NodeJS.ProcessEnv): Transcriber | undefined {
  const stt = config.stt;
  if (!stt.base_url.trim()) return undefined;
  const apiKey = stt.api_key_env ? env[stt.api_key_env] : undefined;
  const client = openAIClient({ baseUrl: stt.base_url, apiKey, timeoutMs: stt.timeout * 1000 });
  return {
    maxBytes: Math.floor(stt.max_mb * 1024 * 1024),
    async transcribe(recording, signal) {
      try {
        const file = await toFile(recording.bytes, recording.name, { type: recording.mimeType });
        const answer: unknown = await client.audio.transcriptions.create({ file, model: stt.model, response_format: 'json' }, { signal });
        const parsed = transcriptShape.safeParse(answer);
        if (!parsed.success) return { ok: false, reason: 'the transcription endpoint answered with something that is not a transcript' };
        const text = parsed.data.text.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim();
        if (!text) return { ok: false, reason: 'the transcription endpoint heard no words in it' };
        return { ok: true, text: text.length > TRANSCRIPT_MAX_CHARS ? `${text.slice(0, TRANSCRIPT_MAX_CHARS - 1)}…` : text };
      } catch (error) {
        return { ok: false, reason: failureReason(error, stt.timeout) };
      }
    },
  };
}

/** Why a transcription failed, without the key or the endpoint's whole body. */
function failureReason(error: unknown, timeoutSecs: number): string {
  if (error instanceof APIConnectionTimeoutError) return `the transcription endpoint did not answer within ${timeoutSecs} s (stt.timeout)`;
  if (error instanceof APIUserAbortError) return 'the gateway stopped before the transcription was done';
  if (error instanceof APIError && error.status !== undefined) return `the transcription endpoint answered HTTP ${error.status}`;
  if (error instanceof SyntaxError) return 'the transcription endpoint answered with something that is not a transcript';
  return `the transcription endpoint could not be reached (${errorMessage(error).slice(0, 200)})`;
}
