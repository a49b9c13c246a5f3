/** Largest request frame a script may send. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of unfinished frames held for all connections of one server: without it a script
 * could hold 16 MiB on each of its connections.
 */
export class FrameBudget {
  used = 0;
  constructor(readonly limit: number) {}
}

/** Why a stream of frames broke. */
export type FrameOverflow = 'frame' | 'budget';

/**
 * Splits a byte stream into newline-delimited frames. A frame longer than `maxBytes`, or
 * one whose unfinished part would take the shared `budget` past its limit, is reported
 * once through `onOverflow`, and the stream is considered broken.
 */
export class FrameReader {
  private parts: Buffer[] = [];
  private size = 0;
  private broken = false;

  constructor(
    private readonly onFrame: (frame: Buffer) => void,
    private readonly onOverflow: (why: FrameOverflow) => void,
    private readonly maxBytes = MAX_FRAME_BYTES,
    private readonly budget?: FrameBudget,
  ) {}

  push(chunk: Buffer): void {
    if (this.broken) return;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      const piece = chunk.subarray(start, newline);
      if (this.size + piece.length > this.maxBytes) return this.overflow('frame');
      if (this.parts.length === 0) {
        this.onFrame(piece);
      } else {
        this.parts.push(piece);
        const frame = Buffer.concat(this.parts);
        this.release();
        this.onFrame(frame);
      }
      start = newline + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      if (this.size + rest.length > this.maxBytes) return this.overflow('frame');
      if (this.budget && this.budget.used + rest.length > this.budget.limit) return this.overflow('budget');
      this.parts.push(rest);
      this.size += rest.length;
      if (this.budget) this.budget.used += rest.length;
    }
  }

  /** Drops the unfinished frame (the connection closed) and gives its bytes back to the budget. */
  dispose(): void {
    this.broken = true;
    this.release();
  }

  private release(): void {
    if (this.budget) this.budget.used -= this.size;
    this.parts = [];
    this.size = 0;
  }

  private overflow(why: FrameOverflow): void {
    this.dispose();
    this.onOverflow(why);
  }
}
