import { execa } from 'execa';
import { z } from 'zod';
import { findExecutable } from '../environments/index.js';

/** What ffprobe says of some bytes: audio (its codec and length) or not, and why not. */
export type ProbedAudio = { audio: true; codec: string; durationSecs?: number } | { audio: false; reason: string };

const PROBE_TIMEOUT_MS = 30_000;

const probeShape = z.object({
  streams: z.array(z.object({ codec_type: z.string().optional(), codec_name: z.string().optional() })).default([]),
  format: z.object({ duration: z.string().optional() }).optional(),
});

/**
 * Asks ffprobe (from stdin, so no path of ours reaches it) whether `bytes` hold an audio
 * stream. A file that only claims to be audio (a renamed script, an image) is "not audio".
 */
export async function probeAudio(bytes: Buffer, signal?: AbortSignal): Promise<ProbedAudio> {
  if (bytes.length === 0) return { audio: false, reason: 'the file is empty' };
  if (!findExecutable('ffprobe')) return { audio: false, reason: 'ffprobe is not installed on the gateway host, so it could not be checked' };
  const run = await execa('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name:format=duration', '-of', 'json', '-i', 'pipe:0'], {
    input: bytes,
    reject: false,
    timeout: PROBE_TIMEOUT_MS,
    ...(signal ? { cancelSignal: signal } : {}),
  });
  if (run.timedOut) return { audio: false, reason: 'ffprobe took too long to read it' };
  let parsed: z.infer<typeof probeShape>;
  try {
    parsed = probeShape.parse(JSON.parse(run.stdout || '{}'));
  } catch {
    return { audio: false, reason: 'ffprobe could not read it' };
  }
  const stream = parsed.streams.find((entry) => entry.codec_type === 'audio');
  if (!stream) return { audio: false, reason: 'ffprobe found no audio in it' };
  const duration = Number.parseFloat(parsed.format?.duration ?? '');
  return { audio: true, codec: stream.codec_name ?? 'unknown', ...(Number.isFinite(duration) ? { durationSecs: duration } : {}) };
}
