import { randomBytes } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileError } from '../file-errors.js';
import type { TransferOptions } from '../types.js';
import { checkSize } from './limits.js';

/** The name an upload is written under, beside its target, until it is whole. */
export function partialName(): string {
  return `.hermes-upload-${randomBytes(8).toString('hex')}`;
}

/**
 * Writes `stream` to `full` on this host's file system (a `host` environment): into a new
 * file beside it (O_EXCL), renamed over the target once the stream ended, removed otherwise.
 */
export async function hostUpload(stream: Readable, full: string, options: TransferOptions): Promise<void> {
  const folder = dirname(full);
  await mkdir(folder, { recursive: true });
  if ((await stat(full).catch(() => undefined))?.isDirectory()) throw fileError('EISDIR', full);
  const partial = join(folder, partialName());
  try {
    await pipeline(stream, createWriteStream(partial, { flags: 'wx' }), { signal: options.signal });
    await rename(partial, full);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/** Streams a regular file of this host, refused against `maxBytes` on the open file's size. */
export async function hostDownload(full: string, options: TransferOptions): Promise<Readable & { size: number }> {
  // O_NONBLOCK: a FIFO must not hang the open.
  const handle = await open(full, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw fileError('EISDIR', full);
    if (!info.isFile()) throw fileError('EIO', full, undefined, 'not a regular file: a FIFO, device or socket');
    checkSize(full, info.size, options.maxBytes);
    return Object.assign(handle.createReadStream(), { size: info.size });
  } catch (error) {
    await handle.close();
    throw error;
  }
}
