import { execa } from 'execa';

/** How long ffmpeg may take over one answer's audio. */
const FFMPEG_TIMEOUT_MS = 60_000;
/** Most amplitude bytes in a waveform (Discord shows up to 256). */
const WAVEFORM_POINTS = 256;
/** The rate the waveform and the length are measured at: enough for a level meter. */
const MEASURE_RATE = 8000;

/** A voice message as the platforms take it: OGG Opus, its length, and its waveform. */
export interface VoiceClip {
  /** OGG Opus bytes. */
  ogg: Buffer;
  durationSecs: number;
  /** Base64 of at most 256 amplitude bytes (0–255), as Discord's voice messages carry it. */
  waveform: string;
}

/** Any audio ffmpeg reads (espeak-ng's WAV, an endpoint's MP3) as mono OGG Opus for voice notes. */
export async function toOggOpus(audio: Buffer, signal?: AbortSignal): Promise<Buffer> {
  const run = await execa('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-ac', '1', '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', '-application', 'voip', '-f', 'ogg', 'pipe:1'], {
    input: audio,
    encoding: 'buffer',
    timeout: FFMPEG_TIMEOUT_MS,
    ...(signal ? { cancelSignal: signal } : {}),
  });
  return Buffer.from(run.stdout);
}

/** Measures a clip: its length from the decoded samples, and the peaks of 256 equal slices of it. */
export async function voiceClip(ogg: Buffer, signal?: AbortSignal): Promise<VoiceClip> {
  const run = await execa('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-ac', '1', '-ar', String(MEASURE_RATE), '-f', 's16le', 'pipe:1'], {
    input: ogg,
    encoding: 'buffer',
    timeout: FFMPEG_TIMEOUT_MS,
    ...(signal ? { cancelSignal: signal } : {}),
  });
  const pcm = Buffer.from(run.stdout);
  const samples = Math.floor(pcm.length / 2);
  return { ogg, durationSecs: Math.max(0.1, samples / MEASURE_RATE), waveform: waveformOf(pcm, samples).toString('base64') };
}

function waveformOf(pcm: Buffer, samples: number): Buffer {
  const points = Math.max(1, Math.min(WAVEFORM_POINTS, samples));
  const levels = Buffer.alloc(points);
  for (let point = 0; point < points; point++) {
    const from = Math.floor((point * samples) / points);
    const to = Math.max(from + 1, Math.floor(((point + 1) * samples) / points));
    let peak = 0;
    for (let i = from; i < to && i < samples; i++) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i * 2)));
    levels[point] = Math.min(255, Math.round((peak / 32768) * 255));
  }
  return levels;
}
