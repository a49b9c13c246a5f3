import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { codeFromMessage, fileError, type FileErrorCode } from '../file-errors.js';
import { shellQuote } from '../../shared/shell-quote.js';
import type { Environment, ExecuteResult, TransferOptions } from '../types.js';
import { partialName } from './host-transfer.js';
import { abortError, checkSize } from './limits.js';
import { asBuffer } from './source.js';

/*
 * The fallback for environments that offer nothing but `execute` (a plugin without upload,
 * download or a provider fileTransfer): base64 in chunks, one command per chunk. Uploads go
 * on stdin (no output cap applies) into a file beside the target, renamed once its size is
 * right; downloads read one block per command, small enough that its base64 stays under the
 * smallest output cap a backend may keep (50 KB). Markers around what is parsed, so a
 * backend that decorates its output (a prefix, a banner) does not corrupt the bytes.
 */

/** Raw bytes per upload command (about 700 KB of base64 on stdin). */
const UPLOAD_CHUNK_BYTES = 512 * 1024;

/** Raw bytes per download command: its base64 stays well under a 50 KB output cap. */
const DOWNLOAD_CHUNK_BYTES = 24 * 1024;

/** Seconds one chunk's command may take. */
const CHUNK_TIMEOUT = 300;

const STATES: Record<string, FileErrorCode> = { EISDIR: 'EISDIR', ENOENT: 'ENOENT', EACCES: 'EACCES', EIO: 'EIO' };


export async function executeUpload(env: Environment, stream: Readable, full: string, options: TransferOptions): Promise<void> {
  const what = `upload to ${full}`;
  const target = shellQuote(full);
  const partial = shellQuote(posix.join(posix.dirname(full), partialName()));
  const run = async (command: string, stdin?: string): Promise<ExecuteResult> => {
    const result = await env.execute(command, { stdin, signal: options.signal, timeout: CHUNK_TIMEOUT });
    if (options.signal?.aborted) throw abortError(options.signal, what);
    return result;
  };
  let total = 0;
  try {
    // Inside the try: an abort can land after the partial file exists but before `@@READY` is read.
    const begin = await run(`if [ -d ${target} ]; then echo @@EISDIR; exit 21; fi; mkdir -p -- ${shellQuote(posix.dirname(full))} && (set -C; : > ${partial}) && echo @@READY`);
    if (!begin.output.includes('@@READY')) throw commandFailure(full, begin);
    for await (const chunk of rechunk(stream, UPLOAD_CHUNK_BYTES)) {
      total += chunk.length;
      const wrote = await run(`base64 -d >> ${partial} && echo @@OK`, chunk.toString('base64'));
      if (!wrote.output.includes('@@OK')) throw commandFailure(full, wrote);
    }
    const done = await run(`[ "$(wc -c < ${partial})" -eq ${total} ] && mv -f -- ${partial} ${target} && echo @@DONE`);
    if (!done.output.includes('@@DONE')) throw commandFailure(full, done);
  } catch (error) {
    // Without the signal: the partial file goes even after an abort.
    await env.execute(`rm -f -- ${partial}`, { timeout: 60 }).catch(() => undefined);
    throw error;
  }
}

export async function executeDownload(env: Environment, full: string, options: TransferOptions): Promise<Readable & { size: number }> {
  const what = `download of ${full}`;
  const q = shellQuote(full);
  const probe = await env.execute(
    `if [ -d ${q} ]; then echo @@EISDIR; elif [ ! -e ${q} ]; then echo @@ENOENT; elif [ ! -f ${q} ]; then echo @@EIO; elif [ ! -r ${q} ]; then echo @@EACCES; else echo "@@SIZE $(wc -c < ${q})"; fi`,
    { signal: options.signal, timeout: CHUNK_TIMEOUT },
  );
  if (options.signal?.aborted) throw abortError(options.signal, what);
  const state = /@@([A-Z]+)(?: +(\d+))?/.exec(probe.output);
  if (!state) throw commandFailure(full, probe);
  if (state[1] !== 'SIZE') {
    throw fileError(STATES[state[1]] ?? 'EIO', full, undefined, state[1] === 'EIO' ? 'not a regular file: a FIFO, device or socket' : undefined);
  }
  const size = Number(state[2]);
  checkSize(full, size, options.maxBytes);
  async function* blocks(): AsyncGenerator<Buffer> {
    let got = 0;
    for (let block = 0; got < size; block++) {
      const result = await env.execute(
        `printf '@@B64 '; dd if=${q} bs=${DOWNLOAD_CHUNK_BYTES} skip=${block} count=1 2>/dev/null | base64 | tr -d '\\n'; printf ' @@END\\n'`,
        { signal: options.signal, timeout: CHUNK_TIMEOUT },
      );
      if (options.signal?.aborted) throw abortError(options.signal, what);
      const data = /@@B64 ([A-Za-z0-9+/=]*) @@END/.exec(result.output);
      if (!data || result.truncated) throw commandFailure(full, result);
      const bytes = Buffer.from(data[1], 'base64');
      // A file that shrank while it was read: stop where it ends now.
      if (bytes.length === 0) throw fileError('EIO', full, undefined, `the file ended at ${got} of ${size} bytes while it was read`);
      got += bytes.length;
      yield got > size ? bytes.subarray(0, bytes.length - (got - size)) : bytes;
    }
  }
  return Object.assign(Readable.from(blocks(), { objectMode: false }), { size });
}

/** The source in chunks of exactly `bytes` (the last one shorter). */
async function* rechunk(source: AsyncIterable<unknown>, bytes: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const chunk of source) {
    let data = asBuffer(chunk);
    while (held + data.length >= bytes) {
      const take = bytes - held;
      parts.push(data.subarray(0, take));
      yield Buffer.concat(parts);
      parts = [];
      held = 0;
      data = data.subarray(take);
    }
    if (data.length > 0) {
      parts.push(data);
      held += data.length;
    }
  }
  if (held > 0) yield Buffer.concat(parts);
}

function commandFailure(path: string, result: ExecuteResult): NodeJS.ErrnoException {
  if (result.output.includes('@@EISDIR')) return fileError('EISDIR', path);
  const code = codeFromMessage(result.output);
  if (code) return fileError(code, path);
  const last = result.output.split('\n').filter(Boolean).pop()?.slice(0, 200);
  return fileError('EIO', path, undefined, result.truncated ? 'the output was cut: the backend keeps less than 50 KB of output' : last || `exit code ${result.exit_code}`);
}
