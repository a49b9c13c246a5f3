/**
 * The kernel's control channel: frames of `u32 big-endian length` + body, where the body's
 * first byte is its kind (see kernel_runner.py). Sizes are capped both ways so a broken or
 * hostile peer cannot make either side buffer without bound.
 */

/** Largest frame Node accepts from a kernel (a traceback is capped at 256 KiB there). */
export const MAX_INBOUND_FRAME = 1024 * 1024;
/** Largest frame a kernel accepts (MAX_FRAME in kernel_runner.py). */
export const MAX_OUTBOUND_FRAME = 16 * 1024 * 1024;

export interface Frame {
  kind: string;
  payload: Buffer;
}

/** One frame: length, kind byte, payload. */
export function encodeFrame(kind: string, ...parts: Buffer[]): Buffer {
  const size = 1 + parts.reduce((sum, part) => sum + part.length, 0);
  const header = Buffer.allocUnsafe(5);
  header.writeUInt32BE(size, 0);
  header.write(kind, 4, 1, 'latin1');
  return Buffer.concat([header, ...parts], 4 + size);
}

/** Cuts a byte stream into frames; a frame over the cap or an empty one is an error. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  private failed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onFrame: (frame: Frame) => void,
    private readonly onError: (message: string) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.failed) return;
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    while (data.length >= 4) {
      const size = data.readUInt32BE(0);
      if (size === 0 || size > this.maxBytes) {
        this.failed = true;
        this.onError(`control frame of ${size} bytes (limit ${this.maxBytes})`);
        return;
      }
      if (data.length < 4 + size) break;
      const body = data.subarray(4, 4 + size);
      data = data.subarray(4 + size);
      this.onFrame({ kind: body.toString('latin1', 0, 1), payload: Buffer.from(body.subarray(1)) });
      if (this.failed) return;
    }
    this.pending = Buffer.from(data);
  }
}
