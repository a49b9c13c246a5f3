import type { Environment, EnvironmentStream } from '../../environments/types.js';
import { HermesError, errorMessage } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { FrameReader, encodeFrame, type Frame } from '../kernel/frames.js';
import { settleWithin } from '../kernel/settle-within.js';
import { RemoteExecError, backendName } from './remote-folder.js';
import { RpcRelay } from './rpc-relay.js';
import {
  MAX_INBOUND_FRAME,
  NO_PYTHON,
  OUTBOUND_CHUNK,
  PROTOCOL_VERSION,
  STREAM_COMMAND,
  exitFrame,
  helloFrame,
  idBytes,
  parseFrame,
  refusalFrame,
  runnerPayload,
  type StreamSetup,
} from './stream-protocol.js';

export { STREAM_COMMAND, type StreamSetup } from './stream-protocol.js';

const STDERR_KEEP = 4096;

export interface ChannelListeners {
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  /** Bytes from a kernel's control socket. */
  onControl?(chunk: Buffer): void;
}

/** How the runner's child ended, or that the stream was lost before it said. */
export type ChannelEnd =
  | { kind: 'exit'; code: number | null; signal: string | null }
  | { kind: 'lost'; detail: string };

export interface OpenChannelOptions {
  /** Variables of the stream (the script's scrubbed set). */
  env: Record<string, string>;
  /** The stream's working folder; the runner starts there. */
  cwd?: string;
  setup: StreamSetup;
  /** The gateway's RPC server for this run: each script connection is relayed to it. */
  rpcSocketPath: string;
  listeners: ChannelListeners;
  logger?: Logger;
  /** How long the runner may take to say it runs; default 30 s. */
  startTimeoutMs?: number;
}

/** The environment offers no usable stream: the caller falls back to the file transport. */
export class StreamUnavailableError extends HermesError {
  override readonly name = 'StreamUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('REMOTE_STREAM', message, options);
  }
}

/** An environment that offers `openStream`. */
export type StreamEnvironment = Environment & Required<Pick<Environment, 'openStream'>>;

/** True when the environment offers `openStream`. */
export function offersStream(environment: Environment): environment is StreamEnvironment {
  return typeof environment.openStream === 'function';
}

interface Hello {
  dir: string;
  pid: number;
  swept: number;
}

/**
 * The gateway's end of one stream to remote_stream_runner.py: sends the runner and its setup,
 * then multiplexes length-prefixed frames — the child's stdout and stderr, a kernel's control
 * bytes, each RPC connection of the script (relayed to the gateway's own RpcServer, which
 * checks the token), the kill and the exit. Only the runner writes the stream; the script's
 * output reaches it through pipes and is framed there, so no byte a script prints can be
 * taken for a frame.
 */
export class StreamChannel {
  /** Settles when the child ended (its output delivered) or the stream was lost; never rejects. */
  readonly ended: Promise<ChannelEnd>;
  readonly #stream: EnvironmentStream;
  readonly #options: OpenChannelOptions;
  readonly #where: string;
  readonly #logger: Logger;
  readonly #relay: RpcRelay;
  readonly #reader: FrameReader;
  #resolveEnd!: (end: ChannelEnd) => void;
  #end: ChannelEnd | undefined;
  #exited = false;
  #stderr = '';
  #hello: Hello | undefined;
  #starting: { resolve(hello: Hello): void; reject(why: Error): void } | undefined;
  #closing: Promise<void> | undefined;

  private constructor(stream: EnvironmentStream, options: OpenChannelOptions, where: string) {
    this.#stream = stream;
    this.#options = options;
    this.#where = where;
    this.#logger = options.logger ?? silentLogger();
    this.ended = new Promise<ChannelEnd>((resolve) => (this.#resolveEnd = resolve));
    this.#relay = new RpcRelay(options.rpcSocketPath, options.setup.maxConnections, {
      data: (id, data) => this.#sendChunked('D', idBytes(id), data),
      close: (id) => this.#send('F', idBytes(id)),
    });
    this.#reader = new FrameReader(MAX_INBOUND_FRAME, (frame) => this.#onFrame(frame), (why) => this.#broken(`broke the stream protocol (${why})`));
    // A broken pipe is the stream ending (seen through `exited` and the closed stdout), never a crash.
    for (const part of [stream.stdin, stream.stdout, stream.stderr]) part.on('error', (error: Error) => this.#logger.debug({ err: errorMessage(error) }, 'execute_code: stream error'));
    stream.stdout.on('data', (chunk: Buffer) => this.#reader.push(chunk));
    stream.stderr.on('data', (chunk: Buffer) => (this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_KEEP)));
    void stream.exited.then(() => (this.#exited = true));
    void Promise.all([stream.exited, new Promise((resolve) => stream.stdout.once('close', resolve))]).then(() => {
      const tail = this.#stderr.trim().split('\n').at(-1);
      this.#finish({ kind: 'lost', detail: `the stream to the backend closed${tail ? ` (${tail})` : ''}` });
    });
  }

  /**
   * Opens the stream, sends the runner and the setup, and waits until the child runs.
   * @throws RemoteExecError (REMOTE_NO_PYTHON) when the backend has no python3;
   * StreamUnavailableError when the stream cannot be opened or the runner does not start.
   */
  static async open(environment: StreamEnvironment, options: OpenChannelOptions): Promise<StreamChannel> {
    const where = backendName(environment);
    let stream: EnvironmentStream;
    try {
      stream = await environment.openStream(STREAM_COMMAND, { env: options.env, cwd: options.cwd });
    } catch (error) {
      throw new StreamUnavailableError(`could not open a stream to the ${where}: ${errorMessage(error)}`, { cause: error });
    }
    const channel = new StreamChannel(stream, options, where);
    try {
      await channel.#start(options.startTimeoutMs ?? 30_000);
      return channel;
    } catch (error) {
      stream.stdin.end();
      await settleWithin(stream.exited, 2000);
      if (!channel.#exited) await stream.kill();
      throw error;
    }
  }

  /** The private folder on the backend. */
  get dir(): string {
    return this.#hello?.dir ?? '';
  }

  /** The child's pid on the backend (it leads its own session there). */
  get pid(): number {
    return this.#hello?.pid ?? 0;
  }

  /** Folders the sweep removed. */
  get swept(): number {
    return this.#hello?.swept ?? 0;
  }

  /** How the child ended, once it has. */
  get end(): ChannelEnd | undefined {
    return this.#end;
  }

  /** Bytes for the kernel's control socket. */
  sendControl(data: Buffer): void {
    this.#sendChunked('C', Buffer.alloc(0), data);
  }

  /** Asks the runner to terminate the child's whole group (SIGTERM, grace, SIGKILL); `ended` follows. */
  terminate(): void {
    this.#send('K');
  }

  /**
   * Ends the child (as `terminate`) and the stream, and waits for both; a runner or client
   * that does not end within the grace is killed through the environment. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (!this.#end) this.#send('Q');
      if (!this.#stream.stdin.writableEnded) this.#stream.stdin.end();
      await settleWithin(this.ended, this.#options.setup.graceMs + 5000);
      await settleWithin(this.#stream.exited, 2000);
      if (!this.#exited) {
        this.#logger.warn({ pid: this.pid, dir: this.dir }, `execute_code: the stream to the ${this.#where} did not end; killing it`);
        await this.#stream.kill();
      }
    })();
    return this.#closing;
  }

  /** Lets an idle stream not keep the event loop alive (an idle kernel); `ref()` undoes it. */
  unref(): void {
    this.#stream.unref?.();
  }

  ref(): void {
    this.#stream.ref?.();
  }

  /** Sends the runner and the setup; resolves on `H`, rejects on `Z`, an early end or the time limit. */
  #start(limitMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new StreamUnavailableError(`the stream runner on the ${this.#where} did not start within ${limitMs} ms`)), limitMs);
      const fail = (why: Error) => {
        clearTimeout(timer);
        this.#starting = undefined;
        reject(why);
      };
      this.#starting = {
        resolve: (hello) => {
          clearTimeout(timer);
          this.#starting = undefined;
          this.#hello = hello;
          resolve();
        },
        reject: fail,
      };
      void this.ended.then(() => this.#starting && fail(this.#earlyEnd()));
      this.#stream.stdin.write(runnerPayload());
      this.#send('S', Buffer.from(JSON.stringify(this.#options.setup), 'utf8'));
    });
  }

  /** Why the stream ended before the runner said it runs. */
  #earlyEnd(): Error {
    if (this.#stderr.includes(NO_PYTHON)) {
      return new RemoteExecError(
        'REMOTE_NO_PYTHON',
        `execute_code needs python3 on the ${this.#where}, but python3 was not found on its PATH. Install Python 3 there, or use another terminal backend for execute_code.`,
      );
    }
    const tail = this.#stderr.trim().split('\n').slice(-3).join(' ');
    return new StreamUnavailableError(`the stream to the ${this.#where} ended before the runner started${tail ? `: ${tail}` : ''}`);
  }

  #onFrame({ kind, payload }: Frame): void {
    if (this.#starting) return this.#onStartFrame(kind, payload);
    const { listeners } = this.#options;
    switch (kind) {
      case 'O':
        return deliver(listeners.onStdout, payload, this.#logger);
      case 'E':
        return deliver(listeners.onStderr, payload, this.#logger);
      case 'C':
        return listeners.onControl && deliver(listeners.onControl, payload, this.#logger);
      case 'N':
        return this.#relay.open(payload.readUInt32BE(0), (id) => this.#send('F', idBytes(id)));
      case 'D':
        return this.#relay.write(payload.readUInt32BE(0), payload.subarray(4));
      case 'F':
        return this.#relay.end(payload.readUInt32BE(0));
      case 'X': {
        const exit = parseFrame(exitFrame, payload);
        return this.#finish(exit ? { kind: 'exit', ...exit } : { kind: 'lost', detail: 'sent an unreadable exit' });
      }
      default:
        this.#broken(`sent an unknown ${JSON.stringify(kind)} frame`);
    }
  }

  #onStartFrame(kind: string, payload: Buffer): void {
    const starting = this.#starting!;
    if (kind === 'H') {
      const hello = parseFrame(helloFrame, payload);
      if (hello && hello.v === PROTOCOL_VERSION) return starting.resolve(hello);
      starting.reject(new StreamUnavailableError(`the stream runner on the ${this.#where} speaks another protocol (${payload.toString('utf8').slice(0, 200)})`));
    } else if (kind === 'Z') {
      const why = parseFrame(refusalFrame, payload)?.error ?? 'no reason given';
      starting.reject(new StreamUnavailableError(`the stream runner on the ${this.#where} could not start the script: ${why}`));
    } else {
      starting.reject(new StreamUnavailableError(`the stream runner on the ${this.#where} sent ${JSON.stringify(kind)} before it started`));
    }
    void this.#stream.kill();
  }

  #broken(detail: string): void {
    this.#logger.warn({ detail }, `execute_code: the stream to the ${this.#where} ${detail}; ending it`);
    this.#finish({ kind: 'lost', detail });
    void this.#stream.kill();
  }

  #finish(end: ChannelEnd): void {
    if (this.#end) return;
    this.#end = end;
    this.#relay.closeAll();
    this.#resolveEnd(end);
  }

  #sendChunked(kind: string, head: Buffer, data: Buffer): void {
    for (let at = 0; at < data.length; at += OUTBOUND_CHUNK) this.#send(kind, head, data.subarray(at, at + OUTBOUND_CHUNK));
  }

  #send(kind: string, ...parts: Buffer[]): void {
    const { stdin } = this.#stream;
    if (!stdin.writableEnded && !stdin.destroyed) stdin.write(encodeFrame(kind, ...parts));
  }
}

function deliver(sink: (chunk: Buffer) => void, chunk: Buffer, logger: Logger): void {
  try {
    sink(chunk);
  } catch (error) {
    logger.error({ err: error }, 'execute_code: a stream output callback threw');
  }
}
