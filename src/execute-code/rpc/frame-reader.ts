/** Largest request frame a script may send. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Splits a byte stream into newline-delimited frames. A frame longer than `maxBytes`
 * is reported once through `onOversize`, and the stream is considered broken.
 */
export class FrameReader {
  private parts: Buffer[] = [];
  private size = 0;
  private broken = false;

  constructor(
    private readonly onFrame: (frame: Buffer) => void,
    private readonly onOversize: () => void,
    private readonly maxBytes = MAX_FRAME_BYTES,
  ) {}

  push(chunk: Buffer): void {
    if (this.broken) return;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      const piece = chunk.subarray(start, newline);
      if (this.size + piece.length > this.maxBytes) return this.oversize();
      if (this.parts.length === 0) {
        this.onFrame(piece);
      } else {
        this.parts.push(piece);
        const frame = Buffer.concat(this.parts);
        this.parts = [];
        this.size = 0;
        this.onFrame(frame);
      }
      start = newline + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.size + rest.length > this.maxBytes) return this.oversize();
      this.parts.push(rest);
      this.size += rest.length;
    }
  }

  private oversize(): void {
    this.broken = true;
    this.parts = [];
    this.size = 0;
    this.onOversize();
  }
}
