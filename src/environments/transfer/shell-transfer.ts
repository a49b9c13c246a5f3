import { randomBytes } from 'node:crypto';
import { Readable, Transform, pipeline as pipeStreams, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { execa } from 'execa';
import { codeFromMessage, fileError, type FileErrorCode } from '../file-errors.js';
import type { TransferOptions, UploadSource } from '../types.js';
import { ByteLimit, abortError, errorCode, tooLarge } from './limits.js';
import { asBuffer, openSource } from './source.js';

/**
 * Files moved by a small POSIX shell program run where the environment's commands run:
 * inside bubblewrap (through `hostCommand`), over ssh, in `docker exec -i`. The bytes are
 * the program's stdin or stdout, so nothing is buffered whole and nothing passes through an
 * output cap. Only the fixed program is on a command line; the path travels on stdin.
 */

/** How an argv is started so that it runs inside the environment. */
export type Launch = (argv: string[]) => { file: string; args: string[]; env?: Record<string, string>; cwd?: string };

/** Bytes of the source gathered into one frame (one `head -c` on the far side). */
const FRAME_BYTES = 1024 * 1024;

/** How long the far side may take to clean up after the gateway stopped sending, before its client is killed. */
const STOP_GRACE_MS = 10_000;

/*
 * Upload. stdin: "<path bytes> <id>\n", the path, then frames "<n>\n" + n bytes, then "0\n".
 * The file is written beside the target (O_EXCL, a random name) and renamed over it only
 * after the end mark; a sender that stops early (an abort, the cap, a dead gateway) leaves
 * EOF without the mark, and the partial file is removed. `head -c` reads no further than asked.
 */
const UPLOAD = [
  "IFS=' ' read -r n id || exit 125",
  'p=$(head -c "$n"; printf x); p=${p%x}',
  'd=${p%/*}; [ -n "$d" ] || d=/',
  '[ -d "$p" ] && exit 21',
  'mkdir -p -- "$d" || exit 1',
  't="$d/.hermes-upload-$id"',
  'trap \'rm -f -- "$t"\' EXIT',
  "trap 'exit 129' HUP INT TERM PIPE",
  '(set -C; : > "$t") || exit 1',
  'while IFS= read -r c; do',
  '  if [ "$c" = 0 ]; then',
  '    [ -d "$p" ] && exit 21',
  '    mv -f -- "$t" "$p" || exit 1',
  '    trap - EXIT',
  '    exit 0',
  '  fi',
  '  head -c "$c" >> "$t" || exit 1',
  'done',
  'exit 32',
].join('\n');

/*
 * Download. stdin: "<path bytes> <cap or -1>\n" and the path. stdout: the size on a line,
 * then the bytes. Exit codes carry the errno when it fails before the first byte.
 */
const DOWNLOAD = [
  "IFS=' ' read -r n max || exit 125",
  'p=$(head -c "$n"; printf x); p=${p%x}',
  '[ -e "$p" ] || exit 2',
  '[ -d "$p" ] && exit 21',
  // FIFOs, devices and sockets would block or never end: regular files only.
  '[ -f "$p" ] || exit 22',
  '[ -r "$p" ] || exit 13',
  'size=$(wc -c < "$p") || exit 5',
  'if [ "$max" -ge 0 ] && [ "$size" -gt "$max" ]; then echo "$size" >&2; exit 27; fi',
  'echo "$size"',
  'exec cat -- "$p"',
].join('\n');

const EXIT_CODES: Record<number, FileErrorCode> = { 2: 'ENOENT', 13: 'EACCES', 21: 'EISDIR', 27: 'EFBIG', 5: 'EIO' };


/** Uploads `source` to `full` through `launch` (the environment members of ssh and docker use this). */
export async function uploadThroughShell(launch: Launch, source: UploadSource, full: string, options: TransferOptions = {}, where = 'the backend'): Promise<void> {
  if (options.signal?.aborted) throw abortError(options.signal, `upload to ${full}`);
  const opened = await openSource(source, full, options.maxBytes);
  const limited = pipeStreams(opened.stream, new ByteLimit(full, options.maxBytes), () => undefined);
  try {
    await shellUpload(launch, limited, full, options, where);
  } finally {
    limited.destroy();
    opened.stream.destroy();
  }
}

/** Streams `stream` into `full` with the upload program; resolves once the file is in place. */
export async function shellUpload(launch: Launch, stream: Readable, full: string, options: TransferOptions, where: string): Promise<void> {
  const what = `upload to ${full}`;
  const child = start(launch, UPLOAD);
  child.stdout.resume();
  const path = Buffer.from(full, 'utf8');
  const header = Buffer.concat([Buffer.from(`${path.length} ${randomBytes(8).toString('hex')}\n`), path]);
  let sending: unknown;
  try {
    // Byte mode: at most a frame or two is held, not 16 of them (an object-mode stream's buffer).
    await pipeline(Readable.from(frames(header, stream), { objectMode: false }), child.stdin, { signal: options.signal });
  } catch (error) {
    sending = error;
    // stdin is closed without the end mark: the far side removes the partial file and exits.
    setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS).unref();
  }
  const run = await child;
  if (options.signal?.aborted) throw abortError(options.signal, what);
  // The cap, or the source failed: the far side got no end mark and removed the partial file.
  if (sending !== undefined && !isPipeError(sending)) throw sending;
  // Exit 0 only follows the end mark.
  if (run.exitCode === 0) return;
  if (run.exitCode === 21) throw fileError('EISDIR', full);
  throw failure(full, text(run.stderr), run, where);
}

/** A download through `launch`: a stream of the file with its `size`, or the errno it failed with. */
export async function downloadThroughShell(launch: Launch, full: string, options: TransferOptions = {}, where = 'the backend'): Promise<Readable & { size: number }> {
  const what = `download of ${full}`;
  if (options.signal?.aborted) throw abortError(options.signal, what);
  const path = Buffer.from(full, 'utf8');
  const child = start(launch, DOWNLOAD);
  // The far side may fail before it reads all of it: its exit says why, not the pipe.
  child.stdin.on('error', () => undefined);
  child.stdin.end(Buffer.concat([Buffer.from(`${path.length} ${options.maxBytes ?? -1}\n`), path]));
  const onAbort = () => child.kill('SIGKILL');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const line = await firstLine(child.stdout, 32).catch(() => undefined);
  options.signal?.removeEventListener('abort', onAbort);
  if (line === undefined || !/^\d+$/.test(line)) {
    child.kill('SIGKILL');
    const run = await child;
    if (options.signal?.aborted) throw abortError(options.signal, what);
    const stderr = text(run.stderr);
    const code = run.exitCode === undefined ? undefined : EXIT_CODES[run.exitCode];
    if (code === 'EFBIG' && options.maxBytes !== undefined) throw tooLarge(full, options.maxBytes, { size: Number(stderr) || undefined });
    if (run.exitCode === 22) throw fileError('EIO', full, undefined, 'not a regular file: a FIFO, device or socket');
    if (code) throw fileError(code, full);
    throw failure(full, stderr, run, where);
  }
  const size = Number(line);
  let finished = false;
  const exitCheck = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      done(null, chunk);
    },
    // The stream ends only once the program exited well: a read error after the size line is an error here.
    flush(done: TransformCallback) {
      void child.then((run) => {
        finished = true;
        done(run.exitCode === 0 ? null : failure(full, text(run.stderr), run, where));
      });
    },
  });
  const out = pipeStreams(child.stdout, new ByteLimit(full, options.maxBytes), exitCheck, () => undefined);
  const onLateAbort = () => out.destroy(abortError(options.signal!, what));
  options.signal?.addEventListener('abort', onLateAbort, { once: true });
  // A reader that stops early (or an abort) ends the program too.
  out.once('close', () => {
    options.signal?.removeEventListener('abort', onLateAbort);
    if (!finished) child.kill('SIGKILL');
  });
  return Object.assign(out, { size });
}

/** The header, then the source in frames of about FRAME_BYTES, then the end mark when the source ended well. */
async function* frames(header: Buffer, source: AsyncIterable<unknown>): AsyncGenerator<Buffer> {
  yield header;
  let parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    const bytes = asBuffer(chunk);
    parts.push(bytes);
    size += bytes.length;
    if (size >= FRAME_BYTES) {
      yield Buffer.from(`${size}\n`);
      yield* parts;
      parts = [];
      size = 0;
    }
  }
  if (size > 0) {
    yield Buffer.from(`${size}\n`);
    yield* parts;
  }
  yield Buffer.from('0\n');
}

/** Starts `program` inside the environment with stdin, stdout and stderr piped (stderr kept, up to 64 KB). */
function start(launch: Launch, program: string) {
  const command = launch(['/bin/sh', '-c', program, 'hermes-transfer']);
  return execa(command.file, command.args, {
    env: command.env,
    extendEnv: command.env === undefined,
    cwd: command.cwd,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    encoding: 'buffer',
    buffer: { stdout: false, stderr: true },
    maxBuffer: { stderr: 64 * 1024 },
    reject: false,
  });
}

/** Reads up to the first newline of `stream` (at most `max` bytes); the rest stays in the stream. Undefined when it ends first. */
function firstLine(stream: Readable, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let seen = Buffer.alloc(0);
    const stop = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onEnd);
      stream.off('error', onError);
      stream.pause();
    };
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const newline = seen.indexOf(10);
      if (newline < 0 && seen.length <= max) return;
      stop();
      if (newline < 0) return reject(new Error('the transfer program printed no size line'));
      const rest = seen.subarray(newline + 1);
      if (rest.length > 0) stream.unshift(rest);
      resolve(seen.subarray(0, newline).toString('utf8'));
    };
    const onEnd = () => {
      stop();
      resolve(undefined);
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('close', onEnd);
    stream.once('error', onError);
  });
}

function failure(path: string, stderr: string, run: { exitCode?: number; failed: boolean; shortMessage?: string }, where: string): NodeJS.ErrnoException {
  const code = codeFromMessage(stderr);
  if (code) return fileError(code, path);
  const last = stderr.split('\n').filter(Boolean).pop()?.slice(0, 200);
  const why = last || (run.exitCode === undefined ? run.shortMessage?.split('\n')[0] : `exit code ${run.exitCode}`) || 'no answer';
  return fileError('EIO', path, undefined, `${where}: ${why}`);
}

function text(value: Uint8Array | undefined): string {
  return value ? Buffer.from(value).toString('utf8').trim() : '';
}

/** The far side closed its stdin first (it failed): its own exit says why. */
function isPipeError(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ERR_STREAM_DESTROYED';
}
