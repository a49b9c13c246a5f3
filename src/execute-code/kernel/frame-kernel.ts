import { silentLogger, type Logger } from '../../shared/logger.js';
import { EXIT_WAIT_MS, acceptsReply, armCell, cellSource, closeCell, finishWhenReady, openCell, type ActiveCell } from './active-cell.js';
import type { Frame } from './frames.js';
import type { FrameTransport } from './frame-transport.js';
import type { KernelWiring } from './kernel-wiring.js';
import { MarkerSplitter } from './marker-splitter.js';
import { settleWithin } from './settle-within.js';
import type { CellOutcome, Kernel, RunCellOptions } from './types.js';

/**
 * One kernel_runner.py kernel over any FrameTransport: the cell state machine. A cell's
 * output is delivered through the callbacks up to its end marker; its outcome comes as a
 * control frame. A cell that ends normally completes once the transport swept what it left;
 * a timeout, an interrupt, a death or a broken protocol end the kernel's whole group, drain
 * what it wrote, then settle. A cell sent while another runs is answered `busy` and not sent.
 */
export class FrameKernel implements Kernel {
  readonly #transport: FrameTransport;
  readonly #stdout = new MarkerSplitter();
  readonly #stderr = new MarkerSplitter();
  protected readonly logger: Logger;
  #alive = true;
  #endedByExit = false;
  #executionCount = 0;
  #cell: ActiveCell | undefined;
  /** How the kernel ended, once it has. */
  #endDetail = 'was stopped';

  /** `transport` has reported ready through `wiring`; from now on the wiring feeds this kernel. */
  protected constructor(transport: FrameTransport, wiring: KernelWiring, logger: Logger = silentLogger()) {
    this.#transport = transport;
    this.logger = logger;
    wiring.attach({
      onStdout: (chunk) => this.#onOutput(this.#stdout, chunk),
      onStderr: (chunk) => this.#onOutput(this.#stderr, chunk),
      onFrame: (frame) => this.#onFrame(frame),
      onProtocolError: (why) => this.#protocolError(why),
    });
    void transport.exited.then(() => (this.#alive = false));
    void transport.ended.then((detail) => this.#onEnd(detail));
  }

  get pid(): number {
    return this.#transport.pid;
  }

  get alive(): boolean {
    return this.#alive;
  }

  get endedByExit(): boolean {
    return this.#endedByExit;
  }

  get executionCount(): number {
    return this.#executionCount;
  }

  async runCell(code: string, options: RunCellOptions): Promise<CellOutcome> {
    if (this.#cell) return { kind: 'busy' };
    if (!this.#alive) return { kind: 'died', detail: `${this.#endDetail} before the cell started` };
    const source = cellSource(code);
    return new Promise((resolve) => {
      const { cell, frame } = openCell(source, options, resolve, { stdout: this.#stdout, stderr: this.#stderr, logger: this.logger });
      this.#cell = cell;
      if (!options.uncounted) this.#executionCount++;
      this.#transport.ref();
      this.#transport.send(frame);
      armCell(cell, (outcome) => void this.#endAbnormally(cell, outcome));
    });
  }

  async kill(reason = 'the session kernel was shut down'): Promise<void> {
    const cell = this.#cell;
    if (cell && !cell.settled) await this.#endAbnormally(cell, { kind: 'interrupted', reason });
    await this.#stop();
  }

  #onOutput(splitter: MarkerSplitter, chunk: Buffer): void {
    splitter.push(chunk);
    if (splitter.done) this.#maybeFinish();
  }

  #onFrame(frame: Frame): void {
    const cell = this.#cell;
    if (!acceptsReply(cell, frame)) return this.#protocolError(`unexpected ${JSON.stringify(frame.kind)} frame`);
    cell.reply = frame;
    if (frame.kind === 'X') {
      this.#alive = false;
      this.#endedByExit = true;
    }
    this.#maybeFinish();
  }

  /** Settles the cell once its reply and both markers are in. */
  #maybeFinish(): void {
    const cell = this.#cell;
    if (!cell) return;
    // After sys.exit() the runner is ending on its own; then nothing of its group may outlive it.
    const ended = () => settleWithin(this.#transport.exited, EXIT_WAIT_MS).then(() => this.#stop());
    finishWhenReady(cell, { stdout: this.#stdout, stderr: this.#stderr }, (outcome) => this.#completeClean(cell, outcome), ended);
  }

  /** Completes a cell that ended normally once nothing it started is left. */
  #completeClean(cell: ActiveCell, outcome: CellOutcome): void {
    const sweeping = this.#transport.sweep();
    if (!sweeping) return this.#complete(cell, outcome);
    cell.settled = true;
    void sweeping.then(() => this.#complete(cell, outcome));
  }

  /** Timeout, interrupt, protocol error: end the group, drain what it wrote, settle. */
  async #endAbnormally(cell: ActiveCell, outcome: CellOutcome): Promise<void> {
    if (cell.settled) return;
    cell.settled = true;
    clearTimeout(cell.timer);
    this.#alive = false;
    this.logger.info({ pid: this.pid, outcome: outcome.kind }, 'kernel cell ended abnormally; killing its process group');
    await this.#transport.terminate();
    this.#stdout.finish();
    this.#stderr.finish();
    this.#complete(cell, outcome);
    await this.#stop();
  }

  #complete(cell: ActiveCell, outcome: CellOutcome): void {
    closeCell(cell, { stdout: this.#stdout, stderr: this.#stderr });
    if (this.#cell === cell) this.#cell = undefined;
    this.#transport.unref();
    cell.resolve(outcome);
  }

  /** The kernel is gone and all it wrote is in: a cell still waiting gets nothing more, so it died. */
  #onEnd(detail: string): void {
    this.#alive = false;
    this.#endDetail = detail;
    this.logger.debug({ pid: this.pid, detail }, 'kernel ended');
    const cell = this.#cell;
    if (cell && !cell.settled) {
      this.#stdout.finish();
      this.#stderr.finish();
      this.#complete(cell, { kind: 'died', detail });
    }
    void this.#stop();
  }

  #protocolError(why: string): void {
    this.logger.warn({ pid: this.pid, why }, 'kernel broke the control protocol; killing it');
    const cell = this.#cell;
    if (cell && !cell.settled) void this.#endAbnormally(cell, { kind: 'died', detail: `broke the control protocol (${why})` });
    else void this.#stop();
  }

  #stop(): Promise<void> {
    this.#alive = false;
    return this.#transport.close();
  }
}
