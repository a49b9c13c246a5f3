import { readFileSync } from 'node:fs';
import type { Environment } from '../../environments/types.js';
import { errorMessage } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { KernelStartError, kernelRunnerPath, type CellOutcome } from '../kernel/index.js';
import { EXIT_WAIT_MS, acceptsReply, armCell, cellSource, closeCell, finishWhenReady, openCell, type ActiveCell } from '../kernel/active-cell.js';
import { FrameReader, MAX_INBOUND_FRAME, type Frame } from '../kernel/frames.js';
import { MarkerSplitter } from '../kernel/marker-splitter.js';
import { settleWithin } from '../kernel/settle-within.js';
import { RpcServer, type RpcHandler } from '../rpc/server.js';
import { StagingDir } from '../staging.js';
import { RemoteExecError } from './remote-folder.js';
import type { RemoteCellOptions } from './remote-kernel.js';
import { StreamChannel, StreamUnavailableError, type ChannelEnd } from './stream-channel.js';
import { claimSweep } from './sweep.js';

/** kernel_runner.py's control protocol version. */
const KERNEL_PROTOCOL = '1';

let runnerText: string | undefined;

export interface StreamKernelStart {
  environment: Environment & Required<Pick<Environment, 'openStream'>>;
  stub: string;
  /** The kernel's working folder on the backend. */
  cwd: string;
  /** The stream's variables (the scrubbed set and Python's settings). */
  env: Record<string, string>;
  graceMs: number;
  maxConnections: number;
  handler: RpcHandler;
  logger?: Logger;
  startTimeoutMs?: number;
}

/**
 * A session kernel on a remote backend over one stream: the same kernel_runner.py as a local
 * kernel, started by remote_stream_runner.py with its control socket and lifeline there;
 * control bytes, the cells' output and the tool calls ride the stream (no files, no polling).
 * The stream is the kernel's lifeline: when it closes (the gateway died, the connection
 * dropped) the runner kills the kernel's group and removes its folder.
 */
export class StreamKernel {
  readonly #channel: StreamChannel;
  readonly #rpc: RpcServer;
  readonly #staging: StagingDir;
  readonly #stdout = new MarkerSplitter();
  readonly #stderr = new MarkerSplitter();
  readonly #logger: Logger;
  readonly #graceMs: number;
  #alive = true;
  #count = 0;
  #cell: ActiveCell<RemoteCellOptions> | undefined;
  #stopping: Promise<void> | undefined;

  private constructor(channel: StreamChannel, rpc: RpcServer, staging: StagingDir, wiring: KernelWiring, options: StreamKernelStart) {
    this.#channel = channel;
    this.#rpc = rpc;
    this.#staging = staging;
    this.#logger = options.logger ?? silentLogger();
    this.#graceMs = options.graceMs;
    wiring.attach({
      onStdout: (chunk) => this.#onOutput(this.#stdout, chunk),
      onStderr: (chunk) => this.#onOutput(this.#stderr, chunk),
      onFrame: (frame) => this.#onFrame(frame),
      onProtocolError: (why) => this.#protocolError(why),
    });
    void channel.ended.then((end) => this.#onEnd(end));
    channel.unref();
  }

  /**
   * Opens the stream, starts the kernel there and waits for its hello.
   * @throws KernelStartError (with a RemoteExecError or StreamUnavailableError as cause) when it cannot.
   */
  static async start(options: StreamKernelStart): Promise<StreamKernel> {
    runnerText ??= readFileSync(kernelRunnerPath(), 'utf8');
    const staging = await StagingDir.create();
    const rpc = new RpcServer({ transport: 'unix', socketPath: staging.socketPath, handler: options.handler, maxConnections: options.maxConnections });
    const wiring = new KernelWiring();
    let channel: StreamChannel | undefined;
    try {
      await rpc.listen();
      channel = await StreamChannel.open(options.environment, {
        env: options.env,
        cwd: options.cwd,
        setup: {
          mode: 'kernel',
          prefix: 'hermes-rkernel',
          files: { 'hermes_tools.py': options.stub, 'kernel.py': runnerText },
          argv: ['python3', '{dir}/kernel.py'],
          env: { HERMES_RPC_TOKEN: rpc.token },
          sweep: claimSweep(options.environment),
          graceMs: options.graceMs,
          maxConnections: options.maxConnections,
        },
        rpcSocketPath: staging.socketPath,
        listeners: wiring.listeners,
        logger: options.logger,
        startTimeoutMs: options.startTimeoutMs,
      });
      await wiring.ready(channel, options.startTimeoutMs ?? 30_000);
      return new StreamKernel(channel, rpc, staging, wiring, options);
    } catch (error) {
      await channel?.close();
      await rpc.close();
      await staging.remove();
      if (error instanceof KernelStartError) throw error;
      const cause = error instanceof RemoteExecError || error instanceof StreamUnavailableError ? error : undefined;
      throw new KernelStartError(errorMessage(error), { cause: cause ?? error });
    }
  }

  /** The kernel's pid on the backend (it leads its own session there). */
  get pid(): number {
    return this.#channel.pid;
  }

  /** The kernel's private folder on the backend. */
  get dir(): string {
    return this.#channel.dir;
  }

  #endedByExit = false;

  /** A cell called sys.exit(): the kernel ended on purpose. */
  get endedByExit(): boolean {
    return this.#endedByExit;
  }

  get alive(): boolean {
    return this.#alive;
  }

  get executionCount(): number {
    return this.#count;
  }

  /**
   * Runs one cell; resolves once every byte it wrote to fds 1 and 2 was delivered. Never
   * rejects for what the cell does.
   * @throws (rejects) KernelCellTooLargeError.
   */
  async runCell(code: string, options: RemoteCellOptions): Promise<CellOutcome> {
    if (!this.#alive) return { kind: 'died', detail: 'was stopped before the cell started' };
    if (this.#cell) return { kind: 'died', detail: 'was already running a cell' };
    const source = cellSource(code);
    return new Promise((resolve) => {
      const { cell, frame } = openCell(source, options, resolve, { stdout: this.#stdout, stderr: this.#stderr, logger: this.#logger });
      this.#cell = cell;
      this.#count++;
      this.#channel.ref();
      this.#channel.sendControl(frame);
      armCell(cell, (outcome) => void this.#endAbnormally(cell, outcome));
    });
  }

  /** Ends the kernel's group and the stream (the runner removes the folder). Idempotent. */
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
    // After sys.exit() the kernel ends on its own; then the stream goes too.
    const ended = () => settleWithin(this.#channel.ended, EXIT_WAIT_MS).then(() => this.#stop());
    finishWhenReady(cell, { stdout: this.#stdout, stderr: this.#stderr }, (outcome) => this.#complete(cell, outcome), ended);
  }

  /** Timeout, interrupt, protocol error: the kill frame, then everything the kernel wrote, then settle. */
  async #endAbnormally(cell: ActiveCell<RemoteCellOptions>, outcome: CellOutcome): Promise<void> {
    if (cell.settled) return;
    cell.settled = true;
    clearTimeout(cell.timer);
    this.#alive = false;
    this.#logger.info({ pid: this.pid, outcome: outcome.kind }, 'remote kernel cell ended abnormally; killing its process group');
    this.#channel.terminate();
    // The runner sends the exit only after the kernel's output: all of it is in by then.
    await settleWithin(this.#channel.ended, this.#graceMs + 3000);
    this.#stdout.finish();
    this.#stderr.finish();
    this.#complete(cell, outcome);
    await this.#stop();
  }

  #complete(cell: ActiveCell<RemoteCellOptions>, outcome: CellOutcome): void {
    closeCell(cell, { stdout: this.#stdout, stderr: this.#stderr });
    if (this.#cell === cell) this.#cell = undefined;
    if (this.#alive) this.#channel.unref();
    cell.resolve(outcome);
  }

  #onEnd(end: ChannelEnd): void {
    this.#alive = false;
    const cell = this.#cell;
    if (!cell || cell.settled) {
      void this.#stop();
      return;
    }
    // Every frame before the end was handled: what is missing now never comes.
    this.#stdout.finish();
    this.#stderr.finish();
    this.#complete(cell, { kind: 'died', detail: endDetail(end) });
    void this.#stop();
  }

  #protocolError(why: string): void {
    this.#logger.warn({ pid: this.pid, why }, 'remote kernel broke the control protocol; killing it');
    const cell = this.#cell;
    if (cell && !cell.settled) void this.#endAbnormally(cell, { kind: 'died', detail: `broke the control protocol (${why})` });
    else void this.#stop();
  }

  /** Closes the stream (the runner ends the kernel's group and removes the folder) and this kernel's RPC server. */
  #stop(): Promise<void> {
    this.#alive = false;
    this.#stopping ??= (async () => {
      await this.#channel.close();
      await this.#rpc.close();
      await this.#staging.remove();
    })();
    return this.#stopping;
  }
}

/** Where a started kernel's output and control frames go. */
interface KernelSink {
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  onFrame(frame: Frame): void;
  onProtocolError(why: string): void;
}

/**
 * Routes a channel's output and kernel control bytes: during start-up to the hello wait, then
 * to the kernel object (the channel exists before the kernel does).
 */
class KernelWiring {
  #target: KernelSink | undefined;
  #hello: { resolve(): void; reject(why: Error): void } | undefined;
  /** What the kernel wrote to stderr before it was ready (an ImportError of the stub, say). */
  #earlyStderr = '';
  readonly #frames = new FrameReader(
    MAX_INBOUND_FRAME,
    (frame) => this.#onFrame(frame),
    (why) => (this.#target ? this.#target.onProtocolError(why) : this.#hello?.reject(new KernelStartError(`the remote kernel broke the control protocol: ${why}`))),
  );

  readonly listeners = {
    onStdout: (chunk: Buffer) => this.#target?.onStdout(chunk),
    onStderr: (chunk: Buffer) => {
      if (this.#target) this.#target.onStderr(chunk);
      else this.#earlyStderr = (this.#earlyStderr + chunk.toString('utf8')).slice(-4096);
    },
    onControl: (chunk: Buffer) => this.#frames.push(chunk),
  };

  /** Waits for the kernel's `H` frame. */
  ready(channel: StreamChannel, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(`it did not report ready within ${timeoutMs} ms`), timeoutMs);
      const fail = (why: string) => {
        clearTimeout(timer);
        this.#hello = undefined;
        const stderr = this.#earlyStderr.trim();
        reject(new KernelStartError(`the remote kernel did not start: ${why}${stderr ? `; its stderr ends with: ${stderr.split('\n').at(-1)}` : ''}`));
      };
      this.#hello = {
        resolve: () => {
          clearTimeout(timer);
          this.#hello = undefined;
          resolve();
        },
        reject: (error) => fail(error.message),
      };
      void channel.ended.then((end) => this.#hello && fail(endDetail(end)));
    });
  }

  attach(target: KernelSink): void {
    this.#target = target;
  }

  #onFrame(frame: Frame): void {
    if (this.#hello) {
      if (frame.kind === 'H' && frame.payload.toString('latin1') === KERNEL_PROTOCOL) this.#hello.resolve();
      else this.#hello.reject(new Error(`unexpected ${JSON.stringify(frame.kind)} frame at start (is kernel_runner.py of another version?)`));
      return;
    }
    this.#target?.onFrame(frame);
  }
}

function endDetail(end: ChannelEnd): string {
  if (end.kind === 'lost') return end.detail;
  return end.signal ? `killed by ${end.signal}` : `exited with code ${end.code}`;
}

