/**
 * Keeps the first `headBytes` and the last `tailBytes` of a stream and counts the rest, so
 * a child that prints a gigabyte costs a fixed amount of memory.
 */
export class OutputCapture {
  private head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  /** Bytes seen in all. */
  total = 0;

  constructor(
    readonly headBytes: number,
    readonly tailBytes: number,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headSize < this.headBytes) {
      const take = Math.min(chunk.length, this.headBytes - this.headSize);
      this.head.push(chunk.subarray(0, take));
      this.headSize += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    if (this.tailBytes === 0) return;
    this.tail.push(chunk);
    this.tailSize += chunk.length;
    // Trim whole chunks, then the front of the oldest; copy so huge chunks are not retained.
    while (this.tailSize - this.tail[0].length >= this.tailBytes) this.tailSize -= this.tail.shift()!.length;
    if (this.tailSize > this.tailBytes) {
      const drop = this.tailSize - this.tailBytes;
      this.tail[0] = Buffer.from(this.tail[0].subarray(drop));
      this.tailSize -= drop;
    }
  }

  /** True when bytes were dropped between head and tail. */
  get truncated(): boolean {
    return this.total > this.headSize + this.tailSize;
  }

  get omitted(): number {
    return this.total - this.headSize - this.tailSize;
  }

  /**
   * The kept text. When bytes were dropped, `marker(omitted, total)` stands between head
   * and tail. Cuts fall on byte boundaries; a split UTF-8 character shows as U+FFFD.
   */
  text(marker?: (omitted: number, total: number) => string): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (!this.truncated) return head + tail;
    const note = marker ? marker(this.omitted, this.total) : `\n... [${this.omitted} bytes omitted] ...\n`;
    return head + note + tail;
  }
}
