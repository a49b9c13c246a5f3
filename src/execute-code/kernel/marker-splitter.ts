/**
 * Ends a cell's output at its marker. The kernel writes a per-cell random marker to fds 1
 * and 2 after the cell; bytes before it belong to the cell, bytes after it (a thread or a
 * background process the cell left running) belong to no cell and are dropped. A tail that
 * could be the start of the marker is held back until the next chunk decides.
 */
export class MarkerSplitter {
  private marker: Buffer | undefined;
  private sink: ((chunk: Buffer) => void) | undefined;
  private held: Buffer = Buffer.alloc(0);
  private found = false;
  /** Bytes that arrived while no cell was listening. */
  dropped = 0;

  /** Starts a cell: output goes to `sink` until `marker`. */
  start(marker: Buffer, sink: (chunk: Buffer) => void): void {
    this.marker = marker;
    this.sink = sink;
    this.held = Buffer.alloc(0);
    this.found = false;
  }

  /** True once the marker of the current cell has been seen. */
  get done(): boolean {
    return this.found;
  }

  push(chunk: Buffer): void {
    const { marker, sink } = this;
    if (!marker || !sink || this.found) {
      this.dropped += chunk.length;
      return;
    }
    const data = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    const at = data.indexOf(marker);
    if (at >= 0) {
      this.held = Buffer.alloc(0);
      this.found = true;
      this.dropped += data.length - at - marker.length;
      if (at > 0) sink(data.subarray(0, at));
      return;
    }
    const keep = partialMarkerLength(data, marker);
    this.held = keep > 0 ? Buffer.from(data.subarray(data.length - keep)) : Buffer.alloc(0);
    if (data.length > keep) sink(data.subarray(0, data.length - keep));
  }

  /**
   * Ends the cell without its marker (the kernel died or was killed): the held-back bytes
   * were output after all. No more output is delivered until the next `start`.
   */
  finish(): void {
    if (this.sink && !this.found && this.held.length > 0) this.sink(this.held);
    this.stop();
  }

  /** Stops delivering output (the cell's outcome is settled). */
  stop(): void {
    this.marker = undefined;
    this.sink = undefined;
    this.held = Buffer.alloc(0);
  }
}

/** Length of the longest tail of `data` that is a proper prefix of `marker`. */
function partialMarkerLength(data: Buffer, marker: Buffer): number {
  // Only positions holding the marker's first byte can start a prefix: usually none.
  let at = data.indexOf(marker[0], Math.max(0, data.length - marker.length + 1));
  while (at >= 0) {
    const length = data.length - at;
    if (data.compare(marker, 0, length, at) === 0) return length;
    at = data.indexOf(marker[0], at + 1);
  }
  return 0;
}
