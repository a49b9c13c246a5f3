import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readMultipart, type UploadedPart } from './multipart.js';

/** One /audio/transcriptions request as the fake read it (multipart, as the openai client sends it). */
export interface TranscriptionRequest {
  authorization: string | undefined;
  fields: Record<string, string>;
  file: UploadedPart | undefined;
}

/** One /audio/speech request (JSON). */
export interface SpeechRequest {
  authorization: string | undefined;
  body: Record<string, unknown>;
}

/** How the fake answers a transcription: the text, slowly, or with something that is not a transcript. */
export type TranscriptionBehaviour =
  | { kind: 'text'; text: string }
  | { kind: 'slow'; delayMs: number; text: string }
  | { kind: 'garbage'; body: string; contentType: string }
  | { kind: 'status'; status: number };

/**
 * An OpenAI-compatible audio API on 127.0.0.1: `POST /v1/audio/transcriptions` (multipart with
 * `file` and `model`, answering `{ "text": … }`) and `POST /v1/audio/speech` (JSON, answering
 * audio bytes: an OGG Opus tone made with ffmpeg, or `speech` when a test sets it).
 */
export class FakeAudioApi {
  readonly transcriptions: TranscriptionRequest[] = [];
  readonly speeches: SpeechRequest[] = [];
  transcription: TranscriptionBehaviour = { kind: 'text', text: 'hello from the voice note' };
  /** What /audio/speech answers; undefined: a one-second tone as OGG Opus. */
  speech: Buffer | undefined;
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('the fake audio API is not started');
    return `http://127.0.0.1:${address.port}/v1`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.open.add(res);
      res.on('close', () => this.open.delete(res));
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error) } }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const authorization = req.headers.authorization;
    if (req.method === 'POST' && req.url === '/v1/audio/transcriptions') {
      const body = await readMultipart(req.headers, req);
      this.transcriptions.push({ authorization, fields: body.fields, file: body.files.find((part) => part.field === 'file') });
      return this.answerTranscription(res);
    }
    if (req.method === 'POST' && req.url === '/v1/audio/speech') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      this.speeches.push({ authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      res.writeHead(200, { 'content-type': 'audio/ogg' });
      res.end((this.speech ??= toneOgg()));
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
  }

  private async answerTranscription(res: ServerResponse): Promise<void> {
    const behaviour = this.transcription;
    if (behaviour.kind === 'status') {
      res.writeHead(behaviour.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'the fake refused' } }));
      return;
    }
    if (behaviour.kind === 'garbage') {
      res.writeHead(200, { 'content-type': behaviour.contentType });
      res.end(behaviour.body);
      return;
    }
    if (behaviour.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ text: behaviour.text }));
  }
}

/** A one-second 440 Hz tone as OGG Opus, made by ffmpeg (what a voice note is on every platform). */
export function toneOgg(seconds = 1): Buffer {
  return execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-ac', '1', '-c:a', 'libopus', '-b:a', '24k', '-f', 'ogg', 'pipe:1'], {
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** What ffprobe says of `bytes`: the first audio stream's codec and the container's format name. */
export function probe(bytes: Buffer): { codec: string | undefined; format: string | undefined } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,codec_type:format=format_name', '-of', 'json', '-i', 'pipe:0'], { input: bytes }).toString('utf8');
  const parsed = JSON.parse(out) as { streams?: Array<{ codec_name?: string; codec_type?: string }>; format?: { format_name?: string } };
  return { codec: parsed.streams?.find((stream) => stream.codec_type === 'audio')?.codec_name, format: parsed.format?.format_name };
}
