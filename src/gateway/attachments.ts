import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import { lookup } from 'mime-types';
import type { TurnImage } from '../agent/types.js';
import { uploadTo, type TooLargeError } from '../environments/transfer/index.js';
import { environmentKind, type Environment } from '../environments/index.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { notTranscribed, type Listener } from '../voice/index.js';
import { formatSize, safeFileName, uniqueName } from './file-names.js';
import type { InboundAttachment } from './types.js';

/** The folder of the workspace files people send go to. */
export const UPLOADS = 'uploads';
/** Images up to this size also go to the model as image parts (when it sees images). */
export const VISION_MAX_BYTES = 5 * 1024 * 1024;
/** Image types the Chat Completions API takes as image parts. */
const VISION_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Extensions for files that came without a name, by kind. */
const DEFAULT_EXT: Record<string, string> = { photo: 'jpg', voice: 'ogg', audio: 'mp3', video: 'mp4' };

export interface ReceiveOptions {
  /** `files.max_inbound_mb` in bytes. */
  maxBytes: number;
  /** Whether images are kept for the model (`model.vision` not false). */
  vision: boolean;
  /** Stops the transfers (the gateway's shutdown; a new message does not, so nothing sent is lost). */
  signal: AbortSignal;
  logger: Logger;
  /** Voice in (`stt:`): recordings get a transcript line after their file line; absent: none. */
  listen?: Listener;
}

/** What came of a message's files. */
export interface Received {
  /** One `[attached: uploads/x.csv — 12 KB, text/csv]` line per file saved, for the model. */
  lines: string[];
  /** One sentence per file that was not saved, for the sender. */
  refusals: string[];
  /** Images for the model. */
  images: TurnImage[];
}

/**
 * Saves each attachment into the environment's `uploads/` under a safe name no other file
 * there has, streaming from the platform (never more than `maxBytes`: a larger file is
 * refused before a byte moves when the platform said its size, else as soon as it passes).
 */
export async function receiveAttachments(env: Environment, attachments: readonly InboundAttachment[], options: ReceiveOptions): Promise<Received> {
  const received: Received = { lines: [], refusals: [], images: [] };
  const limit = `${formatSize(options.maxBytes)} (files.max_inbound_mb)`;
  let taken: Set<string> | undefined;
  for (const attachment of attachments) {
    const shown = attachment.name ? `"${oneLine(attachment.name)}"` : `The ${attachment.kind ?? 'file'}`;
    if (attachment.size !== undefined && attachment.size > options.maxBytes) {
      received.refusals.push(`${shown} is ${formatSize(attachment.size)}, over the limit of ${limit}, so it was not saved.`);
      continue;
    }
    const mimeType = typeOf(attachment);
    const ext = DEFAULT_EXT[attachment.kind ?? ''] ?? '';
    taken ??= await existingUploads(env, options.signal);
    const name = uniqueName(safeFileName(attachment.name, attachment.kind, ext), taken);
    const path = `${UPLOADS}/${name}`;
    const recording = options.listen?.wants({ ...attachment, mimeType }) ? options.listen : undefined;
    const keep = recording
      ? new KeepCopy(recording.maxBytes)
      : options.vision && VISION_TYPES.has(mimeType) && (attachment.size ?? 0) <= VISION_MAX_BYTES ? new KeepCopy(VISION_MAX_BYTES) : undefined;
    try {
      const stream = await attachment.open(options.signal);
      // pipeline: whatever ends the copy (the cap, an abort) also ends the platform's stream.
      const source: Readable = keep ? pipeline(stream, keep, () => undefined) : stream;
      const { bytes } = await uploadTo(env, source, path, { maxBytes: options.maxBytes, signal: options.signal });
      received.lines.push(`[attached: ${path} — ${formatSize(bytes)}, ${mimeType}]`);
      const copy = keep?.copy();
      if (recording) {
        const saved = { path, shown, mimeType };
        const heard = copy
          ? await recording.hear({ ...saved, bytes: copy }, options.signal)
          : notTranscribed(saved, `it is ${formatSize(bytes)}, over the limit of ${formatSize(recording.maxBytes)} (stt.max_mb)`);
        received.lines.push(heard.line);
        if (heard.refusal) received.refusals.push(heard.refusal);
      } else if (copy) received.images.push({ mimeType, data: copy });
    } catch (error) {
      taken.delete(name);
      if ((error as NodeJS.ErrnoException).code === 'EFBIG') {
        const size = (error as TooLargeError).size;
        received.refusals.push(`${shown} is ${size !== undefined ? formatSize(size) : 'larger than that'}, over the limit of ${limit}, so it was not saved.`);
      } else {
        options.logger.warn({ err: error, name }, 'could not save a file someone sent');
        received.refusals.push(`${shown} could not be saved (${errorMessage(error)}); send it again, or ask the gateway's operator to look at the log.`);
      }
    }
  }
  return received;
}

/** The names already in `uploads/`, so a new file never replaces one. */
async function existingUploads(env: Environment, signal: AbortSignal): Promise<Set<string>> {
  // On the host the folder is this machine's: no need for a process to list it.
  if (environmentKind(env) === 'host') {
    const names = await readdir(resolve(env.cwd, UPLOADS)).catch(() => []);
    return new Set(names);
  }
  const listed = await env.execute(`ls -1A ${UPLOADS} 2>/dev/null; true`, { signal, timeout: 30 });
  return new Set(listed.output.split('\n').filter(Boolean));
}

/** The MIME type the platform gave, else the one the name's extension says, else octet-stream. */
function typeOf(attachment: InboundAttachment): string {
  const given = attachment.mimeType?.split(';')[0].trim().toLowerCase();
  if (given && /^[\w.+-]+\/[\w.+-]+$/.test(given)) return given;
  if (attachment.kind === 'photo') return 'image/jpeg';
  return (attachment.name && lookup(attachment.name)) || 'application/octet-stream';
}

function oneLine(text: string): string {
  const flat = text.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

/** Passes bytes on and keeps a copy up to `max` bytes (the image for the model); past it keeps none. */
class KeepCopy extends Transform {
  private chunks: Buffer[] | undefined = [];
  private bytes = 0;

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.chunks && this.bytes <= this.max) this.chunks.push(chunk);
    else this.chunks = undefined;
    done(null, chunk);
  }

  copy(): Buffer | undefined {
    return this.chunks ? Buffer.concat(this.chunks) : undefined;
  }
}
