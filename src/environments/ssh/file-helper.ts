import { z } from 'zod';
import type { Logger } from '../../shared/logger.js';
import { errorMessage } from '../../shared/errors.js';
import { fileError, type FileErrorCode } from '../file-errors.js';
import { abortError } from '../../shared/abort-error.js';
import type { EnvironmentStream, FileOptions, ReadFileOptions } from '../types.js';
import { shellQuote } from '../../shared/shell-quote.js';

/*
 * The file tools' reads and writes on a remote backend over one long-lived stream: a small
 * Python helper on the far side (stdlib only, Python >= 3.8) answers one request at a time.
 * A request is `u32 length` + JSON header + `u32 length` + body; so is its answer. A read
 * opens the file once (O_NONBLOCK, so a FIFO cannot hang it), refuses what is not a regular
 * file, checks the size against the cap, and stops past the cap while reading; a write makes
 * the parent folders and writes in place (as `cat > file` would: links followed, the mode
 * kept). Errors carry the errno's name. Without python3 there, the caller's shell path serves.
 */
const HELPER = String.raw`
import errno, json, os, stat, struct, sys
try:
    import ctypes
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
except Exception:
    pass
def take(n):
    data = b""
    while len(data) < n:
        part = os.read(0, n - len(data))
        if not part:
            sys.exit(0)
        data += part
    return data
def put(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
def answer(head, body=b""):
    text = json.dumps(head).encode()
    put(1, struct.pack(">I", len(text)) + text + struct.pack(">I", len(body)) + body)
def read(path, cap):
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise OSError(errno.EISDIR, "is a directory")
        if not stat.S_ISREG(info.st_mode):
            return {"code": "EIO", "detail": "not a regular file: a FIFO, device or socket"}, b""
        if 0 <= cap < info.st_size:
            return {"code": "EFBIG", "size": info.st_size}, b""
        os.set_blocking(fd, True)
        parts, total = [], 0
        while True:
            part = os.read(fd, 1 << 20)
            if not part:
                return {}, b"".join(parts)
            total += len(part)
            if 0 <= cap < total:
                return {"code": "EFBIG", "atLeast": total}, b""
            parts.append(part)
    finally:
        os.close(fd)
def write(path, data):
    folder = os.path.dirname(path)
    if folder:
        try:
            os.makedirs(folder, exist_ok=True)
        except FileExistsError:
            raise OSError(errno.ENOTDIR, "a part of the path is not a directory")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOCTTY, 0o666)
    try:
        put(fd, data)
    finally:
        os.close(fd)
    return {}, b""
answer({"hello": 1})
while True:
    head = json.loads(take(struct.unpack(">I", take(4))[0]))
    body = take(struct.unpack(">I", take(4))[0])
    try:
        result = read(head["path"], head.get("max", -1)) if head["op"] == "read" else write(head["path"], body)
    except OSError as error:
        result = {"code": errno.errorcode.get(error.errno, "EIO"), "detail": error.strerror or str(error)}, b""
    answer(*result)
`;

/** The helper's command: python3 with the helper, or exit 127 when there is none. */
export const FILE_HELPER_COMMAND = `command -v python3 >/dev/null 2>&1 || exit 127; exec python3 -I -c ${shellQuote(HELPER)}`;

/** The codes fileError knows; others become EIO with the name in the detail. */
const KNOWN: readonly FileErrorCode[] = ['ENOENT', 'EISDIR', 'ENOTDIR', 'EACCES', 'EROFS', 'EFBIG', 'EIO'];
const isKnown = (code: string): code is FileErrorCode => (KNOWN as readonly string[]).includes(code);
/** Largest answer header; a body is at most the read's cap (or this for writes). */
const MAX_HEAD = 64 * 1024;
const DEFAULT_MAX_BODY = 1024 * 1024 * 1024;
const REQUEST_TIMEOUT_MS = 60_000;
/** After a helper could not start (no python3), the shell path serves this long before it is tried again. */
const RETRY_AFTER_MS = 60_000;

/** The helper cannot serve (it did not start): use the shell path. */
export class FileHelperUnavailable extends Error {
  override readonly name = 'FileHelperUnavailable';
}

/** An answer's header: empty for success, `code` (and what it knows) for a failure. */
const answerHead = z.object({
  code: z.string().optional(),
  detail: z.string().optional(),
  size: z.number().optional(),
  atLeast: z.number().optional(),
  hello: z.number().optional(),
});

interface Answer {
  head: z.infer<typeof answerHead>;
  body: Buffer;
}

/** The helper went away under a request (not an abort, not a timeout): worth one more try on a new one. */
class HelperLost extends Error {
  override readonly name = 'HelperLost';
}

/** One running helper: writes requests, cuts answers from its stdout. */
class HelperConnection {
  readonly ended: Promise<void>;
  #pending: Buffer = Buffer.alloc(0);
  #waiter: { resolve(answer: Answer): void; reject(why: Error): void; maxBody: number } | undefined;
  #failure: Error | undefined;

  constructor(readonly stream: EnvironmentStream) {
    for (const part of [stream.stdin, stream.stdout, stream.stderr]) part.on('error', () => undefined);
    stream.stdout.on('data', (chunk: Buffer) => this.#push(chunk));
    stream.stderr.resume();
    this.ended = stream.exited.then(() => this.#fail(new HelperLost('the file helper ended')));
  }

  /** Sends one request (or none, for the hello) and waits for its answer. */
  exchange(head: Record<string, unknown> | undefined, body: Buffer, maxBody: number): Promise<Answer> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise<Answer>((resolve, reject) => {
      this.#waiter = { resolve, reject, maxBody };
      if (head) {
        const text = Buffer.from(JSON.stringify(head), 'utf8');
        this.stream.stdin.write(Buffer.concat([u32(text.length), text, u32(body.length), body]));
      }
      this.#parse();
    });
  }

  #push(chunk: Buffer): void {
    this.#pending = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#parse();
  }

  #parse(): void {
    const waiter = this.#waiter;
    if (!waiter || this.#pending.length < 4) return;
    const headSize = this.#pending.readUInt32BE(0);
    if (headSize > MAX_HEAD) return this.#fail(new Error(`the file helper sent a ${headSize}-byte header`));
    if (this.#pending.length < 8 + headSize) return;
    const bodySize = this.#pending.readUInt32BE(4 + headSize);
    if (bodySize > waiter.maxBody) return this.#fail(new Error(`the file helper sent ${bodySize} bytes, over the ${waiter.maxBody} asked for`));
    if (this.#pending.length < 8 + headSize + bodySize) return;
    let parsed: ReturnType<typeof answerHead.safeParse> | undefined;
    try {
      parsed = answerHead.safeParse(JSON.parse(this.#pending.toString('utf8', 4, 4 + headSize)));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) return this.#fail(new Error('the file helper sent an unreadable header'));
    const head = parsed.data;
    const body = Buffer.from(this.#pending.subarray(8 + headSize, 8 + headSize + bodySize));
    this.#pending = this.#pending.subarray(8 + headSize + bodySize);
    this.#waiter = undefined;
    waiter.resolve({ head, body });
  }

  #fail(why: Error): void {
    this.#failure ??= why;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(why);
    void this.stream.kill();
  }
}

/**
 * Serves `readFile` and `writeFile` of a remote shell environment over one stream, opened on
 * first use and closed after `idleMs` without a request (an idle SSH session is one of the
 * connection's ten). A request that is aborted or takes over a minute ends the helper; the
 * next one starts another.
 */
export class FileHelper {
  #connection: Promise<HelperConnection> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #unavailableUntil = 0;
  #idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly open: (command: string) => EnvironmentStream | Promise<EnvironmentStream>,
    private readonly options: { where: string; idleMs?: number; logger?: Logger },
  ) {}

  /** @throws FileHelperUnavailable when no helper runs there; errno-coded errors as node:fs would. */
  async read(path: string, options: ReadFileOptions = {}): Promise<Buffer> {
    const max = options.maxBytes ?? -1;
    const { head, body } = await this.#call({ op: 'read', path, max }, Buffer.alloc(0), max >= 0 ? max : DEFAULT_MAX_BODY, options.signal);
    if (head.code) throw this.#error(head, path, max);
    return body;
  }

  /** @throws FileHelperUnavailable when no helper runs there; errno-coded errors as node:fs would. */
  async write(path: string, data: Buffer | string, options: FileOptions = {}): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const { head } = await this.#call({ op: 'write', path }, bytes, 0, options.signal);
    if (head.code) throw this.#error(head, path, -1);
  }

  /** Ends the helper (the environment's cleanup, or idle): after the requests already queued. */
  close(): Promise<void> {
    clearTimeout(this.#idle);
    const run = this.#queue.then(() => this.#closeNow());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #closeNow(): Promise<void> {
    const connection = await this.#connection?.catch(() => undefined);
    this.#connection = undefined;
    if (!connection) return;
    connection.stream.stdin.end();
    const timer = setTimeout(() => void connection.stream.kill(), 2000);
    await connection.ended;
    clearTimeout(timer);
  }

  #call(head: Record<string, unknown>, body: Buffer, maxBody: number, signal?: AbortSignal): Promise<Answer> {
    // A read or a whole-file write can be repeated: once, on a fresh helper, when the old one went away.
    const once = () => this.#exchange(head, body, maxBody, signal);
    const run = this.#queue.then(() => once().catch((error: unknown) => (error instanceof HelperLost ? once() : Promise.reject(error))));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #exchange(head: Record<string, unknown>, body: Buffer, maxBody: number, signal?: AbortSignal): Promise<Answer> {
    if (signal?.aborted) throw abortError(signal, `${String(head.op)} of ${String(head.path)}`);
    clearTimeout(this.#idle);
    const connection = await this.#connect();
    connection.stream.ref?.();
    const stop = (why: Error) => {
      // A request cut short leaves the helper mid-answer: it goes, the next call starts another.
      this.#connection = undefined;
      void connection.stream.kill();
      return why;
    };
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await new Promise<Answer>((resolve, reject) => {
        timer = setTimeout(() => reject(stop(new Error(`the file helper on the ${this.options.where} did not answer within ${REQUEST_TIMEOUT_MS} ms`))), REQUEST_TIMEOUT_MS);
        if (signal) {
          onAbort = () => reject(stop(abortError(signal, `${String(head.op)} of ${String(head.path)}`)));
          signal.addEventListener('abort', onAbort, { once: true });
        }
        connection.exchange(head, body, maxBody).then(resolve, (error: unknown) => {
          this.#connection = undefined;
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      });
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      connection.stream.unref?.();
      this.#idle = setTimeout(() => void this.close(), this.options.idleMs ?? 30_000);
      this.#idle.unref();
    }
  }

  #connect(): Promise<HelperConnection> {
    if (Date.now() < this.#unavailableUntil) return Promise.reject(new FileHelperUnavailable('the file helper did not start recently'));
    this.#connection ??= (async () => {
      let stream: EnvironmentStream;
      try {
        stream = await this.open(FILE_HELPER_COMMAND);
      } catch (error) {
        throw new FileHelperUnavailable(`could not open the file helper's stream: ${errorMessage(error)}`);
      }
      const connection = new HelperConnection(stream);
      try {
        const hello = await connection.exchange(undefined, Buffer.alloc(0), 0);
        if (hello.head.hello !== 1) throw new Error('it did not say hello');
        return connection;
      } catch (error) {
        throw new FileHelperUnavailable(`the file helper on the ${this.options.where} did not start: ${errorMessage(error)}`);
      }
    })().catch((error: unknown) => {
      this.#connection = undefined;
      this.#unavailableUntil = Date.now() + RETRY_AFTER_MS;
      this.options.logger?.debug({ err: errorMessage(error) }, 'file helper unavailable; the file tools use the shell');
      throw error;
    });
    return this.#connection;
  }

  #error(head: Answer['head'], path: string, max: number): NodeJS.ErrnoException & { size?: number } {
    const code = head.code ?? 'EIO';
    if (code === 'EFBIG') {
      const size = head.size ?? head.atLeast;
      return fileError('EFBIG', path, size, head.size !== undefined ? `${head.size} bytes, over the cap of ${max} bytes` : `at least ${size} bytes, over the cap of ${max} bytes`);
    }
    if (isKnown(code)) return fileError(code, path, undefined, head.detail);
    return fileError('EIO', path, undefined, `${code}${head.detail ? `: ${head.detail}` : ''}`);
  }
}

function u32(value: number): Buffer {
  const bytes = Buffer.allocUnsafe(4);
  bytes.writeUInt32BE(value, 0);
  return bytes;
}
