import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { Logger } from '../../shared/logger.js';
import { fileError, type FileErrorCode } from '../file-errors.js';
import type { EnvironmentStream, ExecuteOptions, ExecuteResult, FileOptions, ReadFileOptions, TransferOptions } from '../types.js';
import { FileHelper, FileHelperUnavailable } from './file-helper.js';
import { shellQuote } from '../../shared/shell-quote.js';

/** What a remote shell environment lends its file operations. */
export interface RemoteFilesDeps {
  openStream(command: string): EnvironmentStream | Promise<EnvironmentStream>;
  download(path: string, options: TransferOptions): Promise<Readable>;
  execute(command: string, options: ExecuteOptions): Promise<ExecuteResult>;
  where: string;
  logger?: Logger;
}

/** Words in a shell's error message, and the errno they stand for. */
const MESSAGES: [RegExp, FileErrorCode][] = [
  [/read-only file system/i, 'EROFS'],
  [/permission denied/i, 'EACCES'],
  [/is a directory/i, 'EISDIR'],
  [/not a directory|file exists/i, 'ENOTDIR'],
  [/no such file/i, 'ENOENT'],
];

/**
 * `readFile` and `writeFile` of SSH and Docker: over the file helper's stream (one request a
 * round trip, no command per call), else — no python3 there, a stream that would not open —
 * as one command each (the download stream; `base64 -d >` in place for a write).
 */
export class RemoteFiles {
  readonly #helper: FileHelper;

  constructor(private readonly deps: RemoteFilesDeps) {
    this.#helper = new FileHelper((command) => deps.openStream(command), { where: deps.where, logger: deps.logger });
  }

  async read(path: string, options: ReadFileOptions = {}): Promise<Buffer> {
    try {
      return await this.#helper.read(path, options);
    } catch (error) {
      if (!(error instanceof FileHelperUnavailable)) throw error;
    }
    return buffer(await this.deps.download(path, { maxBytes: options.maxBytes, signal: options.signal }));
  }

  async write(path: string, data: Buffer | string, options: FileOptions = {}): Promise<void> {
    try {
      return await this.#helper.write(path, data, options);
    } catch (error) {
      if (!(error instanceof FileHelperUnavailable)) throw error;
    }
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const result = await this.deps.execute(`mkdir -p -- ${shellQuote(posix.dirname(path))} && base64 -d > ${shellQuote(path)}`, {
      stdin: bytes.toString('base64'),
      signal: options.signal,
    });
    if (result.exit_code === 0) return;
    const text = result.output.trim();
    const code = MESSAGES.find(([pattern]) => pattern.test(text))?.[1] ?? 'EIO';
    throw fileError(code, path, undefined, text.split('\n').at(-1));
  }

  close(): Promise<void> {
    return this.#helper.close();
  }
}
