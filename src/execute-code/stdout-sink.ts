import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { OutputCapture } from '../shared/output-capture.js';
import type { SpillFolder } from '../environments/types.js';
import { pruneSpills } from './spill-prune.js';

export const truncationMarker = (omitted: number, total: number) =>
  `\n... [OUTPUT TRUNCATED - ${omitted} bytes omitted out of ${total} total] ...\n`;

/**
 * Where a script's stdout goes: the first 40 % and last 60 % of `maxBytes` kept in memory,
 * and, once it outgrows that, the full text (up to `spillBytes`) written to a file under
 * `spillDir` so the model can page it with read_file instead of running the script again.
 */
export class StdoutSink {
  readonly capture: OutputCapture;
  private early: Buffer[] = [];
  private earlySize = 0;
  private spill?: WriteStream;
  private spilled = 0;
  private spillPathValue?: string;
  private spillError?: Error;

  constructor(
    private readonly maxBytes: number,
    private readonly spillBytes: number,
    private readonly spillTo: SpillFolder,
  ) {
    this.capture = new OutputCapture(Math.floor(maxBytes * 0.4), Math.ceil(maxBytes * 0.6));
  }

  push(chunk: Buffer): void {
    this.capture.push(chunk);
    if (!this.spill) {
      if (this.earlySize + chunk.length <= this.maxBytes) {
        this.early.push(chunk);
        this.earlySize += chunk.length;
        return;
      }
      this.openSpill();
    }
    this.writeSpill(chunk);
  }

  /** Waits for the spill file to be complete; returns its path as the script's environment sees it, when stdout was truncated. */
  async finish(): Promise<string | undefined> {
    const spill = this.spill;
    if (!spill) return undefined;
    await new Promise<void>((resolve) => spill.end(resolve));
    return this.spillError ? undefined : this.spillPathValue;
  }

  text(): string {
    return this.capture.text(truncationMarker);
  }

  private openSpill(): void {
    const name = `stdout-${Date.now()}-${randomBytes(4).toString('hex')}.txt`;
    const path = join(this.spillTo.host, name);
    this.spillPathValue = join(this.spillTo.visible, name);
    // Made here, only when a script outgrows the cap, so a call never waits on it before its turn.
    try {
      mkdirSync(this.spillTo.host, { recursive: true, mode: 0o700 });
    } catch (error) {
      this.spillError = error as Error;
    }
    pruneSpills(this.spillTo.host, name);
    const stream = createWriteStream(path, { flags: 'w', mode: 0o600, highWaterMark: 256 * 1024 });
    stream.on('error', (error) => (this.spillError = error));
    this.spill = stream;
    for (const part of this.early) this.writeSpill(part);
    this.early = [];
  }

  private writeSpill(chunk: Buffer): void {
    const room = this.spillBytes - this.spilled;
    if (room <= 0 || !this.spill) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.spilled += part.length;
    this.spill.write(part);
  }
}
