/**
 * Files in and out of every environment, through one front door: `uploadTo` and
 * `downloadFrom` pick the way for the environment, so callers never branch on backends.
 *
 * - the environment's own `upload`/`download` (ssh and docker: a `cat` stream over their client);
 * - `host` environments (local): this host's file system (host-transfer.ts);
 * - `isolated` ones (sandbox): the shell program run inside through `hostCommand`, so a
 *   symlink resolves in the sandbox's view (shell-transfer.ts);
 * - a provider's `fileTransfer` (plugins);
 * - else `execute`, base64 in chunks (execute-transfer.ts).
 *
 * Everything streams; `maxBytes` is checked before moving when the size is known and
 * enforced while moving whatever the way (limits.ts), so a plugin cannot exceed it.
 */
import { posix } from 'node:path';
import { pipeline, type Readable } from 'node:stream';
import { providerOf } from '../environment-info.js';
import type { TerminalEnvironmentProvider } from '../provider.js';
import { environmentKind, runsOnThisHost, type Environment, type HostProcessEnvironment, type TransferOptions, type UploadSource } from '../types.js';
import { executeDownload, executeUpload } from './execute-transfer.js';
import { hostDownload, hostUpload } from './host-transfer.js';
import { ByteLimit, abortError, checkSize } from './limits.js';
import { downloadThroughShell, shellUpload, type Launch } from './shell-transfer.js';
import { openSource } from './source.js';

export { uploadThroughShell, downloadThroughShell, type Launch } from './shell-transfer.js';
export { tooLarge, isAbortError, type TooLargeError } from './limits.js';
export type { TransferOptions, UploadSource } from '../types.js';

/** What an upload did. */
export interface UploadResult {
  /** The file's absolute path as the environment sees it. */
  path: string;
  /** Bytes written. */
  bytes: number;
}

/** A downloaded file as a stream, with its absolute path there and its size when the backend said. */
export class DownloadStream extends ByteLimit {
  constructor(path: string, maxBytes: number | undefined, readonly size: number | undefined) {
    super(path, maxBytes);
  }
}

/**
 * Copies a host file (a path), bytes or a stream to `remotePath` in the environment
 * (relative paths start at its cwd), creating parent folders. The file appears whole or not
 * at all: an abort, the cap or a failure leaves nothing behind.
 * @throws EFBIG (with `size` when known and `maxBytes`), the errno of what failed, or an AbortError.
 */
export async function uploadTo(env: Environment, source: UploadSource, remotePath: string, options: TransferOptions = {}): Promise<UploadResult> {
  const full = resolveIn(env, remotePath);
  if (options.signal?.aborted) throw abortError(options.signal, `upload to ${full}`);
  const opened = await openSource(source, full, options.maxBytes);
  const limit = new ByteLimit(full, options.maxBytes);
  const limited = pipeline(opened.stream, limit, () => undefined);
  try {
    await uploadWay(env)(limited, full, options);
  } catch (error) {
    throw options.signal?.aborted ? abortError(options.signal, `upload to ${full}`) : error;
  } finally {
    limited.destroy();
    opened.stream.destroy();
  }
  return { path: full, bytes: limit.bytes };
}

/**
 * A stream of the file at `remotePath` as the environment's commands see it. Rejects before
 * the first byte where it can (ENOENT, EISDIR, EACCES, EFBIG past `maxBytes`); the stream
 * fails with EFBIG should more than `maxBytes` arrive, and with an AbortError on abort.
 */
export async function downloadFrom(env: Environment, remotePath: string, options: TransferOptions = {}): Promise<DownloadStream> {
  const full = resolveIn(env, remotePath);
  const what = `download of ${full}`;
  if (options.signal?.aborted) throw abortError(options.signal, what);
  let source: Readable;
  try {
    source = await downloadWay(env)(full, options);
  } catch (error) {
    throw options.signal?.aborted ? abortError(options.signal, what) : error;
  }
  const size = 'size' in source && typeof source.size === 'number' ? source.size : undefined;
  if (size !== undefined) {
    try {
      checkSize(full, size, options.maxBytes);
    } catch (error) {
      source.destroy();
      throw error;
    }
  }
  const out = new DownloadStream(full, options.maxBytes, size);
  pipeline(source, out, () => undefined);
  const signal = options.signal;
  if (signal) {
    const onAbort = () => out.destroy(abortError(signal, what));
    signal.addEventListener('abort', onAbort, { once: true });
    out.once('close', () => signal.removeEventListener('abort', onAbort));
  }
  return out;
}

/** A path as the environment's commands see it: absolute, relative ones from its cwd. */
function resolveIn(env: Environment, path: string): string {
  return env.resolvePath ? env.resolvePath(path) : posix.resolve(env.cwd, path);
}

type UploadWay = (stream: Readable, full: string, options: TransferOptions) => Promise<void>;
type DownloadWay = (full: string, options: TransferOptions) => Readable | Promise<Readable>;

/** Where an isolated environment's transfer program runs, as its messages name it. */
const ISOLATED = 'the isolated environment';

function uploadWay(env: Environment): UploadWay {
  const own = env.upload;
  if (typeof own === 'function') return (stream, full, options) => own.call(env, stream, full, options);
  if (environmentKind(env) === 'host') return hostUpload;
  if (runsOnThisHost(env)) return (stream, full, options) => shellUpload(insideOf(env), stream, full, options, ISOLATED);
  const provided = providerTransfer(env);
  if (typeof provided?.upload === 'function') return (stream, full, options) => provided.upload(env, stream, full, options);
  return (stream, full, options) => executeUpload(env, stream, full, options);
}

function downloadWay(env: Environment): DownloadWay {
  const own = env.download;
  if (typeof own === 'function') return (full, options) => own.call(env, full, options);
  if (environmentKind(env) === 'host') return hostDownload;
  if (runsOnThisHost(env)) return (full, options) => downloadThroughShell(insideOf(env), full, options, ISOLATED);
  const provided = providerTransfer(env);
  if (typeof provided?.download === 'function') return (full, options) => provided.download(env, full, options);
  return (full, options) => executeDownload(env, full, options);
}

/** Runs an argv inside an environment whose processes start on this host. */
function insideOf(env: HostProcessEnvironment): Launch {
  return (argv) => env.hostCommand(argv, {});
}

/** The provider's `fileTransfer`, read fail-safe: one that throws or is malformed counts as absent. */
function providerTransfer(env: Environment): TerminalEnvironmentProvider['fileTransfer'] | undefined {
  const provider = providerOf(env);
  if (!provider) return undefined;
  try {
    const value = provider.raw.fileTransfer;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
