import { probeAudio } from './audio-probe.js';
import type { Transcriber } from './stt.js';

/** What a saved recording adds: a line next to its `[attached: …]` line, and a sentence for the sender when it went wrong. */
export interface Heard {
  line: string;
  refusal?: string;
}

/** Hears the recordings people send (voice in), for the gateway's file receiving. */
export interface Listener {
  /** Largest recording transcribed, in bytes: the gateway keeps a copy up to this. */
  readonly maxBytes: number;
  /** Whether a file is meant as a recording (a voice note, an audio file), by what its platform said of it. */
  wants(file: { kind?: string; mimeType?: string }): boolean;
  /** The transcript line of a saved recording (at most `maxBytes`); `shown` names it for the sender. */
  hear(saved: { path: string; bytes: Buffer; mimeType: string; shown: string }, signal: AbortSignal): Promise<Heard>;
}

/** A listener on `transcriber`: checks each recording is audio (ffprobe) and small enough before it leaves the host. */
export function listenerFor(transcriber: Transcriber): Listener {
  return {
    maxBytes: transcriber.maxBytes,
    wants: (file) => file.kind === 'voice' || file.kind === 'audio' || (file.mimeType ?? '').toLowerCase().startsWith('audio/'),
    async hear(saved, signal) {
      const probed = await probeAudio(saved.bytes, signal);
      if (!probed.audio) {
        const why = `it is not audio (${probed.reason})`;
        return notTranscribed(saved, why);
      }
      const name = saved.path.split('/').pop() ?? 'audio';
      const outcome = await transcriber.transcribe({ bytes: saved.bytes, name, mimeType: saved.mimeType }, signal);
      if (!outcome.ok) return { line: `[transcription failed: ${saved.path} — ${outcome.reason}]` };
      return { line: `[transcript of ${saved.path}: ${JSON.stringify(outcome.text)}]` };
    },
  };
}

/** A recording refused before it left the host: said to the model and to the sender. */
export function notTranscribed(saved: { path: string; shown: string }, why: string): Heard {
  return { line: `[not transcribed: ${saved.path} — ${why}]`, refusal: `${saved.shown} was saved but not transcribed: ${why}.` };
}
