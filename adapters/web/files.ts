import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Hono } from 'hono';
import { z } from 'zod';
import { formatSize, safeFileName } from '../../src/gateway/file-names.js';
import type { InboundAttachment, OutboundFile } from '../../src/gateway/types.js';
import type { TranscriptStore } from './transcript.js';
import type { FileRef } from './types.js';

/** A web upload's ref as another instance passed it: exactly these two keys. */
const webFileRefSchema = z.strictObject({ platform: z.literal('web'), upload: z.string() });

/** The web chat keeps files it shows on this machine's disk: up to 256 MiB each. */
export const WEB_FILE_MAX_BYTES = 256 * 1024 * 1024;
/** Pictures the page previews inline; everything else (SVG and HTML included) is only a download. */
const PREVIEW_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Audio the page plays in an <audio> player (voice answers); served with its own type, nothing in it runs. */
const PLAYABLE_TYPES = new Set(['audio/ogg', 'audio/mpeg', 'audio/webm']);
const FILE_ID = /^[0-9a-f]{24}$/;
/** An upload whose message was never sent is removed after a day. */
const INBOX_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** What is kept beside a file (`<id>.json`): read back with this schema, never cast. */
const metaSchema = z.object({ name: z.string(), mimeType: z.string(), size: z.number() });
type Meta = z.infer<typeof metaSchema>;

/**
 * Files of the web chat under `<home>/web/files/`: what the page uploads waits in `inbox/` until
 * its message is sent (then it streams into the session's workspace and is removed), and what
 * the agent sends is kept per thread in `<thread>/` to be shown and downloaded.
 */
export class WebFiles {
  constructor(private readonly root: string) {}

  /** Streams an upload into the inbox, at most `maxBytes`; refuses past it and leaves nothing. */
  async receive(body: Readable | ReadableStream<Uint8Array>, given: { name: string; mimeType: string }, maxBytes: number): Promise<FileRef> {
    const id = randomBytes(12).toString('hex');
    const dir = join(this.root, 'inbox');
    await mkdir(dir, { recursive: true });
    await pruneOlder(dir, Date.now() - INBOX_MAX_AGE_MS);
    const path = join(dir, id);
    const counter = new Cap(maxBytes);
    try {
      const source = body instanceof Readable ? body : Readable.fromWeb(body as WebReadableStream<Uint8Array>);
      await pipeline(source, counter, createWriteStream(path, { mode: 0o600 }));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    const meta: Meta = { name: safeFileName(given.name), mimeType: given.mimeType, size: counter.bytes };
    await writeFile(`${path}.json`, JSON.stringify(meta), { mode: 0o600 });
    return { id, ...meta };
  }

  /** An uploaded file as an attachment for the gateway; the inbox copy goes once it has been read. */
  async attachment(id: string): Promise<InboundAttachment | undefined> {
    if (!FILE_ID.test(id)) return undefined;
    const path = join(this.root, 'inbox', id);
    // Only a plain file the inbox holds: a symlink could lead out of it.
    if (!(await plainFile(path)) || !(await plainFile(`${path}.json`))) return undefined;
    const meta = await readMeta(path);
    if (!meta) return undefined;
    return {
      ref: { platform: 'web', upload: id },
      kind: 'file',
      name: meta.name,
      mimeType: meta.mimeType,
      size: meta.size,
      open: async () => {
        const stream = createReadStream(path);
        stream.once('close', () => void rm(path, { force: true }).then(() => rm(`${path}.json`, { force: true })));
        return stream;
      },
    };
  }

  /**
   * An upload another instance sharing this HERMES_HOME received, from its untrusted ref: only
   * `{ platform: 'web', upload: <id> }` naming a plain file in the inbox; undefined for anything else.
   */
  async reopen(ref: unknown): Promise<InboundAttachment | undefined> {
    const parsed = webFileRefSchema.safeParse(ref);
    return parsed.success ? this.attachment(parsed.data.upload) : undefined;
  }

  /** Keeps a file the agent sent to a thread; returns what the page shows of it. */
  async keep(threadId: string, file: OutboundFile): Promise<FileRef> {
    const id = randomBytes(12).toString('hex');
    const dir = join(this.root, threadId);
    await mkdir(dir, { recursive: true });
    const path = join(dir, id);
    const counter = new Cap(WEB_FILE_MAX_BYTES);
    try {
      await pipeline(await file.open(), counter, createWriteStream(path, { mode: 0o600 }));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    const meta: Meta = { name: file.name, mimeType: file.mimeType, size: counter.bytes };
    await writeFile(`${path}.json`, JSON.stringify(meta), { mode: 0o600 });
    return { id, ...meta };
  }

  /**
   * A kept file as a download: always `Content-Disposition: attachment`, `nosniff` and a
   * sandboxing CSP, and a real type only for the pictures the page previews; anything else is
   * `application/octet-stream`, so an SVG or HTML file is never run as the chat's own page.
   */
  async download(threadId: string, id: string): Promise<Response | undefined> {
    if (!FILE_ID.test(id)) return undefined;
    const path = join(this.root, threadId, id);
    const meta = await readMeta(path);
    if (!meta) return undefined;
    const size = (await stat(path)).size;
    const type = PREVIEW_TYPES.has(meta.mimeType) || PLAYABLE_TYPES.has(meta.mimeType) ? meta.mimeType : 'application/octet-stream';
    const stream = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
    return new Response(stream, {
      headers: {
        'Content-Type': type,
        'Content-Length': String(size),
        'Content-Disposition': `attachment; filename="${meta.name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(meta.name)}`,
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Cache-Control': 'private, no-store',
      },
    });
  }
}

/** Removes the files the agent sent in a thread (the thread was deleted). */
export async function forgetThreadFiles(root: string, threadId: string): Promise<void> {
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(threadId)) return;
  await rm(join(root, threadId), { recursive: true, force: true });
}

/** Whether the page previews a file of this type inline. */
export function previewable(mimeType: string): boolean {
  return PREVIEW_TYPES.has(mimeType);
}

/** Removes the files in `dir` last changed before `before` (uploads left behind by a closed tab). */
async function pruneOlder(dir: string, before: number): Promise<void> {
  for (const name of await readdir(dir).catch(() => [])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && info.mtimeMs < before) await rm(path, { force: true });
  }
}

async function plainFile(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isFile() ?? false;
}

async function readMeta(path: string): Promise<Meta | undefined> {
  try {
    const meta = metaSchema.safeParse(JSON.parse(await readFile(`${path}.json`, 'utf8')));
    return meta.success ? meta.data : undefined;
  } catch {
    return undefined;
  }
}

/** Counts bytes and fails with EFBIG past the cap. */
class Cap extends Transform {
  bytes = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.max) {
      done(Object.assign(new Error(`the file is larger than ${formatSize(this.max)}`), { code: 'EFBIG' }));
      return;
    }
    done(null, chunk);
  }
}

export interface FileRoutesDeps {
  store: TranscriptStore;
  files: WebFiles;
  /** `files.max_inbound_mb` in bytes. */
  maxUploadBytes: number;
}

/**
 * `POST /api/threads/:id/uploads`: the file as the raw body, its name in `X-Hermes-File-Name`
 * (URI-encoded) and its type in Content-Type; the `X-Hermes-Upload` header is what lets it
 * through the same-origin check (a cross-site page cannot send it without a preflight).
 * `GET /api/threads/:id/files/:file`: a file the agent sent, as a download.
 */
export function fileRoutes(deps: FileRoutesDeps): Hono {
  const app = new Hono();
  const limit = `${formatSize(deps.maxUploadBytes)} (files.max_inbound_mb)`;
  app.post('/:id/uploads', async (c) => {
    const id = c.req.param('id');
    if (!deps.store.hasThread(id)) return c.json({ error: `no web thread "${id}"` }, 404);
    const declared = Number(c.req.header('content-length') ?? NaN);
    const rawName = c.req.header('x-hermes-file-name') ?? '';
    let name: string;
    try {
      name = decodeURIComponent(rawName);
    } catch {
      name = rawName;
    }
    const shown = name ? `"${name.replace(/[\p{Cc}\p{Cf}]+/gu, ' ')}"` : 'The file';
    if (Number.isFinite(declared) && declared > deps.maxUploadBytes) {
      return c.json({ error: `${shown} is ${formatSize(declared)}, over the limit of ${limit}; it was not sent.` }, 413);
    }
    // The request itself where node:http gives it: Readable.toWeb (behind c.req.raw.body) reads
    // ahead without backpressure on Node 20 and would hold a large upload in memory.
    const env: unknown = c.env;
    const incoming = typeof env === 'object' && env !== null && 'incoming' in env && env.incoming instanceof IncomingMessage ? env.incoming : undefined;
    const body = incoming ?? c.req.raw.body;
    if (!body) return c.json({ error: 'send the file as the request body' }, 400);
    const mimeType = (c.req.header('content-type') ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
    try {
      const upload = await deps.files.receive(body, { name, mimeType }, deps.maxUploadBytes);
      return c.json({ upload }, 201);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EFBIG') return c.json({ error: `${shown} is over the limit of ${limit}; it was not sent.` }, 413);
      throw error;
    }
  });
  app.get('/:id/files/:file', async (c) => {
    const id = c.req.param('id');
    const response = deps.store.hasThread(id) ? await deps.files.download(id, c.req.param('file')) : undefined;
    return response ?? c.json({ error: 'no such file in this thread' }, 404);
  });
  return app;
}
