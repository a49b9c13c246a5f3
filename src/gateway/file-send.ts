import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { lookup } from 'mime-types';
import type { Environment } from '../environments/index.js';
import { downloadFrom, type DownloadStream, type TooLargeError } from '../environments/transfer/index.js';
import { errorMessage } from '../shared/errors.js';
import type { SentFile } from '../tools/types.js';
import { formatSize, safeFileName } from './file-names.js';
import type { PlatformAdapter, ReplyTarget } from './types.js';

export interface SendFileRequest {
  /** The file as the environment's commands name it (relative paths start at its cwd). */
  path: string;
  caption?: string;
  environment: Environment;
  signal: AbortSignal;
}

/**
 * Pulls a file out of the session's environment (streamed, at most the platform's
 * `files.maxBytes`) and posts it with the adapter's `files.send`. Rejects with an Error that says
 * what was wrong and what to do: no such file, a folder, over the platform's limit.
 */
export async function sendFileFrom(adapter: PlatformAdapter, replyTo: ReplyTarget, request: SendFileRequest): Promise<SentFile> {
  const send = adapter.files?.send?.bind(adapter.files);
  if (!send) throw new Error(`${adapter.name} cannot take files from the gateway; tell the user the file's path instead`);
  const { path, environment, signal } = request;
  const maxBytes = adapter.files?.maxBytes;
  const name = safeFileName(posix.basename(path.replace(/\/+$/, '')), 'file');
  const mimeType = lookup(name) || 'application/octet-stream';
  const limits = { maxBytes, signal };
  let current: DownloadStream = await downloadFrom(environment, path, limits).catch((error: unknown) => {
    throw explain(error, path, name, adapter);
  });
  const first = current;
  let opened = 0;
  const open = async (): Promise<Readable> => {
    opened += 1;
    if (opened === 1) return first;
    current = await downloadFrom(environment, path, limits);
    return current;
  };
  try {
    await send(replyTo, { name, mimeType, ...(first.size !== undefined ? { size: first.size } : {}), ...(request.caption ? { caption: request.caption } : {}), open });
  } catch (error) {
    throw explain(error, path, name, adapter);
  } finally {
    first.destroy();
    current.destroy();
  }
  return { name, bytes: first.size ?? current.bytes, mime_type: mimeType };
}

/** A transfer or platform failure in words for the model. */
function explain(error: unknown, path: string, name: string, adapter: PlatformAdapter): Error {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return new Error(`no file at ${path} in the session's environment; write it first, or check the path`);
    case 'EISDIR':
      return new Error(`${path} is a folder; send one file (zip the folder first)`);
    case 'EACCES':
      return new Error(`cannot read ${path}: permission denied`);
    case 'EFBIG': {
      const { size, maxBytes } = error as TooLargeError;
      return new Error(
        `${name} is ${size !== undefined ? formatSize(size) : 'larger than that'}; files sent to ${adapter.name} may be at most ${formatSize(maxBytes)}: ` +
          'make it smaller (compress it, lower the resolution, or split it) and send again',
      );
    }
    default:
      return new Error(`${adapter.name} did not take ${name}: ${errorMessage(error)}`);
  }
}

/**
 * The reply without its `MEDIA:<path>` lines, and those paths (the convention of the system we
 * implement: a reply names files to attach on lines of their own). Lines inside code fences
 * are examples, not files, and stay.
 */
export function mediaLines(text: string): { text: string; paths: string[] } {
  const paths: string[] = [];
  const kept: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const match = fenced ? null : /^\s*MEDIA:\s*(.+?)\s*$/.exec(line);
    const path = match?.[1].replace(/^[`'"<]+|[`'">]+$/g, '');
    if (path) paths.push(path);
    else kept.push(line);
  }
  return paths.length > 0 ? { text: kept.join('\n').replace(/\n{3,}/g, '\n\n').trim(), paths } : { text, paths };
}
