import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment, EnvironmentStream } from '../../environments/types.js';
import { shellQuote } from '../../environments/ssh/remote-command.js';
import { HermesError, errorMessage } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { packageRoot } from '../../shared/package-root.js';
import { FrameReader, encodeFrame, type Frame } from '../kernel/frames.js';
import { settleWithin } from '../kernel/settle-within.js';
import { RemoteExecError, backendName } from './remote-folder.js';
import { RpcRelay } from './rpc-relay.js';

/** Version of remote_stream_runner.py's protocol this side speaks. */
const PROTOCOL_VERSION = '1';
/** Largest frame the runner sends (its chunks are 64 KiB). */
const MAX_INBOUND_FRAME = 1024 * 1024;
/** Data frames to the runner are cut to this size, so no single frame holds the stream up. */
const OUTBOUND_CHUNK = 256 * 1024;
const STDERR_KEEP = 4096;
/** What the stream's shell prints to stderr when the backend has no python3. */
const NO_PYTHON = '@@hermes-no-python3';

/**
 * The loader on the stream's command line (fixed text, nothing of the caller's): it reads the
 * runner's source from stdin (ten digits of length, then the text) and runs it. `-I`: no
 * PYTHON* variables, no user site, nothing of the working folder on sys.path.
 */
const LOADER = [
  'import os',
  'def r(n):',
  " b=b''",
  ' while len(b)<n:',
  '  c=os.read(0,n-len(b))',
  '  if not c:raise SystemExit(3)',
  '  b+=c',
  ' return b',
  "exec(compile(r(int(r(10))),'hermes-stream-runner','exec'))",
].join('\n');

/** The command every stream runs: python3 or a line that says it is missing. */
export const STREAM_COMMAND = `command -v python3 >/dev/null 2>&1 || { echo '${NO_PYTHON}' >&2; exit 127; }; exec python3 -I -c ${shellQuote(LOADER)}`;

let runnerSource: Buffer | undefined;

/** remote_sweep.py then remote_stream_runner.py, as the loader expects them. */
function runnerPayload(): Buffer {
  if (!runnerSource) {
    const python = join(packageRoot(), 'src/execute-code/python');
    const text = `${readFileSync(join(python, 'remote_sweep.py'), 'utf8')}\n${readFileSync(join(python, 'remote_stream_runner.py'), 'utf8')}`;
    const body = Buffer.from(text, 'utf8');
    runnerSource = Buffer.concat([Buffer.from(String(body.length).padStart(10, '0'), 'latin1'), body]);
  }
  return runnerSource;
}

/** What the runner makes and starts (the `S` frame; see remote_stream_runner.py). */
export interface StreamSetup {
  mode: 'script' | 'kernel';
  prefix: 'hermes-rexec' | 'hermes-rkernel';
  /** Files written into the private folder (0600). */
  files: Record<string, string>;
  /** The child's argv; `{dir}` stands for the private folder. */
  argv: string[];
  /** The child's working folder (`{dir}` allowed); absent: the stream's own. */
  cwd?: string;
  /** Variables laid over the stream's for the child only (the token). */
  env: Record<string, string>;
  /** Remove folders a killed gateway left (see remote_sweep.py). */
  sweep: boolean;
  graceMs: number;
  maxConnections: number;
}

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

/** True when the environment offers `openStream`. */
export function offersStream(environment: Environment): environment is Environment & Required<Pick<Environment, 'openStream'>> {
  return typeof environment.openStream === 'function';
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
  /** The private folder on the backend. */
  readonly dir: string;
  /** The child's pid on the backend (it leads its own session there). */
  readonly pid: number;
  /** Folders the sweep removed. */
  readonly swept: number;
  /** Settles when the child ended (its output delivered) or the stream was lost; never rejects. */
  readonly ended: Promise<ChannelEnd>;
  #end: ChannelEnd | undefined;
  #closing: Promise<void> | undefined;

  private constructor(
    private readonly stream: EnvironmentStream,
    hello: { dir: string; pid: number; swept: number },
    ended: Promise<ChannelEnd>,
    private readonly graceMs: number,
    private readonly logger: Logger,
  ) {
    this.dir = hello.dir;
    this.pid = hello.pid;
    this.swept = hello.swept;
    this.ended = ended.then((end) => (this.#end = end));
  }

  /**
   * Opens the stream, sends the runner and the setup, and waits until the child runs.
   * @throws RemoteExecError (REMOTE_NO_PYTHON) when the backend has no python3;
   * StreamUnavailableError when the stream cannot be opened or the runner does not start.
   */
  static async open(environment: Environment & Required<Pick<Environment, 'openStream'>>, options: OpenChannelOptions): Promise<StreamChannel> {
    const logger = options.logger ?? silentLogger();
    let stream: EnvironmentStream;
    try {
      stream = await environment.openStream(STREAM_COMMAND, { env: options.env, cwd: options.cwd });
    } catch (error) {
      throw new StreamUnavailableError(`could not open a stream to the ${backendName(environment)}: ${errorMessage(error)}`, { cause: error });
    }
    // A broken pipe is the stream ending (seen through `exited` and the closed stdout), never a crash.
    for (const part of [stream.stdin, stream.stdout, stream.stderr]) part.on('error', (error: Error) => logger.debug({ err: errorMessage(error) }, 'execute_code: stream error'));
    let stderr = '';
    let hello: ((value: { dir: string; pid: number; swept: number }) => void) | undefined;
    let refused: ((why: Error) => void) | undefined;
    let resolveEnd!: (end: ChannelEnd) => void;
    const ended = new Promise<ChannelEnd>((resolve) => (resolveEnd = resolve));
    let finished = false;
    const finish = (end: ChannelEnd) => {
      if (finished) return;
      finished = true;
      relay.closeAll();
      resolveEnd(end);
    };
    const send = (kind: string, ...parts: Buffer[]) => {
      if (!stream.stdin.writableEnded && !stream.stdin.destroyed) stream.stdin.write(encodeFrame(kind, ...parts));
    };
    const relay = new RpcRelay(options.rpcSocketPath, options.setup.maxConnections, {
      data: (id, data) => {
        for (let at = 0; at < data.length; at += OUTBOUND_CHUNK) send('D', idBytes(id), data.subarray(at, at + OUTBOUND_CHUNK));
      },
      close: (id) => send('F', idBytes(id)),
    });
    const onFrame = (frame: Frame) => {
      const { kind, payload } = frame;
      if (hello) {
        if (kind === 'H') {
          const info = parseJson(payload) as { v?: unknown; dir?: unknown; pid?: unknown; swept?: unknown } | undefined;
          const done = hello;
          hello = undefined;
          if (info?.v !== PROTOCOL_VERSION || typeof info.dir !== 'string' || typeof info.pid !== 'number') {
            refused?.(new StreamUnavailableError(`the stream runner on the ${backendName(environment)} speaks another protocol (${payload.toString('utf8').slice(0, 200)})`));
            void stream.kill();
            return;
          }
          done({ dir: info.dir, pid: info.pid, swept: typeof info.swept === 'number' ? info.swept : 0 });
          return;
        }
        if (kind === 'Z') {
          const why = (parseJson(payload) as { error?: unknown } | undefined)?.error;
          refused?.(new StreamUnavailableError(`the stream runner on the ${backendName(environment)} could not start the script: ${String(why ?? 'no reason given')}`));
          return;
        }
      }
      switch (kind) {
        case 'O':
          return deliver(options.listeners.onStdout, payload, logger);
        case 'E':
          return deliver(options.listeners.onStderr, payload, logger);
        case 'C':
          return options.listeners.onControl && deliver(options.listeners.onControl, payload, logger);
        case 'N':
          return relay.open(payload.readUInt32BE(0), (id) => send('F', idBytes(id)));
        case 'D':
          return relay.write(payload.readUInt32BE(0), payload.subarray(4));
        case 'F':
          return relay.end(payload.readUInt32BE(0));
        case 'X': {
          const exit = parseJson(payload) as { code?: unknown; signal?: unknown } | undefined;
          return finish({
            kind: 'exit',
            code: typeof exit?.code === 'number' ? exit.code : null,
            signal: typeof exit?.signal === 'string' ? exit.signal : null,
          });
        }
        default:
          logger.warn({ kind }, 'execute_code: the stream runner sent an unknown frame; ending the stream');
          void stream.kill();
      }
    };
    const reader = new FrameReader(MAX_INBOUND_FRAME, onFrame, (why) => {
      logger.warn({ why }, 'execute_code: the stream broke its framing; ending it');
      finish({ kind: 'lost', detail: `broke the stream protocol (${why})` });
      void stream.kill();
    });
    stream.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    stream.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP)));
    const closed = Promise.all([stream.exited, new Promise((resolve) => stream.stdout.once('close', resolve))]);
    void closed.then(() => {
      const tail = stderr.trim().split('\n').at(-1);
      finish({ kind: 'lost', detail: `the stream to the backend closed${tail ? ` (${tail})` : ''}` });
    });
    let exitedNow = false;
    void stream.exited.then(() => (exitedNow = true));
    const limitMs = options.startTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const started = new Promise<{ dir: string; pid: number; swept: number }>((resolve, reject) => {
      hello = resolve;
      refused = reject;
      timer = setTimeout(() => reject(new StreamUnavailableError(`the stream runner on the ${backendName(environment)} did not start within ${limitMs} ms`)), limitMs);
      void ended.then(() => {
        if (stderr.includes(NO_PYTHON)) {
          reject(
            new RemoteExecError(
              'REMOTE_NO_PYTHON',
              `execute_code needs python3 on the ${backendName(environment)}, but python3 was not found on its PATH. Install Python 3 there, or use another terminal backend for execute_code.`,
            ),
          );
        }
        const tail = stderr.trim().split('\n').slice(-3).join(' ');
        reject(new StreamUnavailableError(`the stream to the ${backendName(environment)} ended before the runner started${tail ? `: ${tail}` : ''}`));
      });
    });
    stream.stdin.write(runnerPayload());
    send('S', Buffer.from(JSON.stringify(options.setup), 'utf8'));
    try {
      const info = await started;
      return new StreamChannel(stream, info, ended, options.setup.graceMs, logger);
    } catch (error) {
      hello = undefined;
      stream.stdin.end();
      await settleWithin(stream.exited, 2000);
      if (!exitedNow) await stream.kill();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** How the child ended, once it has. */
  get end(): ChannelEnd | undefined {
    return this.#end;
  }

  /** Bytes for the kernel's control socket. */
  sendControl(data: Buffer): void {
    for (let at = 0; at < data.length; at += OUTBOUND_CHUNK) this.#send('C', data.subarray(at, at + OUTBOUND_CHUNK));
  }

  /** Asks the runner to terminate the child's whole group (SIGTERM, grace, SIGKILL); `ended` follows. */
  terminate(): void {
    this.#send('K');
  }

  /**
   * Ends the child (as `terminate`) and the stream, and waits for both; a runner that does not
   * answer within the grace is killed through the environment. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (!this.#end) this.#send('Q');
      if (!this.stream.stdin.writableEnded) this.stream.stdin.end();
      await settleWithin(this.ended, this.graceMs + 5000);
      await settleWithin(this.stream.exited, 2000);
      if (!this.#end) {
        this.logger.warn({ pid: this.pid, dir: this.dir }, 'execute_code: the stream runner did not end; killing it');
        await this.stream.kill();
      }
    })();
    return this.#closing;
  }

  /** Lets an idle stream not keep the event loop alive (an idle kernel); `ref()` undoes it. */
  unref(): void {
    this.stream.unref?.();
  }

  ref(): void {
    this.stream.ref?.();
  }

  #send(kind: string, ...parts: Buffer[]): void {
    const { stdin } = this.stream;
    if (!stdin.writableEnded && !stdin.destroyed) stdin.write(encodeFrame(kind, ...parts));
  }
}

function idBytes(id: number): Buffer {
  const bytes = Buffer.allocUnsafe(4);
  bytes.writeUInt32BE(id, 0);
  return bytes;
}

function parseJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function deliver(sink: (chunk: Buffer) => void, chunk: Buffer, logger: Logger): void {
  try {
    sink(chunk);
  } catch (error) {
    logger.error({ err: error }, 'execute_code: a stream output callback threw');
  }
}
