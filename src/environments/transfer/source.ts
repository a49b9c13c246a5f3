import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { fileError } from '../file-errors.js';
import type { UploadSource } from '../types.js';
import { checkSize } from './limits.js';

/** Bytes handed on at a time from a Buffer source (views, not copies). */
const SLICE_BYTES = 1024 * 1024;

/** An upload's source as a stream, with its size when it was known before moving. */
export interface OpenedSource {
  stream: Readable;
  size?: number;
}

/**
 * Opens what an upload moves. A host path is opened once and measured on the open file
 * (regular files only), a Buffer measured: either is refused against `maxBytes` before a
 * byte moves (a host file's error names it, the others `target`). A stream is taken as it is; the cap then holds while it flows (ByteLimit).
 */
export async function openSource(source: UploadSource, target: string, maxBytes: number | undefined): Promise<OpenedSource> {
  if (Buffer.isBuffer(source)) {
    checkSize(target, source.length, maxBytes);
    return { stream: Readable.from(slices(source)), size: source.length };
  }
  if (typeof source === 'string') {
    // O_NONBLOCK: a FIFO must not hang the open; the size checked is the size of the file read.
    const handle = await open(source, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw fileError('EISDIR', source);
      if (!info.isFile()) throw fileError('EIO', source, undefined, 'not a regular file: a FIFO, device or socket');
      checkSize(source, info.size, maxBytes);
      return { stream: handle.createReadStream(), size: info.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
  return { stream: source };
}

function* slices(data: Buffer): Generator<Buffer> {
  for (let at = 0; at < data.length; at += SLICE_BYTES) yield data.subarray(at, at + SLICE_BYTES);
}

/** A chunk of a stream as bytes (a stream may have been given an encoding). */
export function asBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError(`upload: the source stream gave a ${typeof chunk}, not bytes; pass a byte stream`);
}
