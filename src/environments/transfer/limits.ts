import { Transform, type TransformCallback } from 'node:stream';
import { fileError } from '../file-errors.js';

/** A size-cap refusal: EFBIG with the file's size (when known) and the cap. */
export type TooLargeError = NodeJS.ErrnoException & { size?: number; maxBytes: number };

/**
 * EFBIG for `path`: `size` when it is known before moving, else `atLeast` (the bytes seen
 * when the stream passed the cap).
 */
export function tooLarge(path: string, maxBytes: number, size: { size?: number; atLeast?: number }): TooLargeError {
  const detail = size.size !== undefined
    ? `${size.size} bytes, over the cap of ${maxBytes} bytes`
    : `at least ${size.atLeast ?? maxBytes + 1} bytes, over the cap of ${maxBytes} bytes`;
  return Object.assign(fileError('EFBIG', path, size.size, detail), { maxBytes });
}

export { abortError, isAbortError } from '../../shared/abort-error.js';

/** Checks a size known before moving against the cap. */
export function checkSize(path: string, size: number, maxBytes: number | undefined): void {
  if (maxBytes !== undefined && size > maxBytes) throw tooLarge(path, maxBytes, { size });
}

/**
 * Passes bytes through, counting them, and fails with EFBIG once more than `maxBytes` went
 * by: the cap holds while moving, whatever the other side promised.
 */
export class ByteLimit extends Transform {
  bytes = 0;

  constructor(
    /** The file it moves (named in its EFBIG). */
    readonly path: string,
    private readonly maxBytes: number | undefined,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.maxBytes !== undefined && this.bytes > this.maxBytes) {
      done(tooLarge(this.path, this.maxBytes, { atLeast: this.bytes }));
      return;
    }
    done(null, chunk);
  }
}

/** The errno-style `code` of a thrown value, when it has one. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
