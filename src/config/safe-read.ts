import { closeSync, constants, fstatSync, openSync, readFileSync, statSync, type Stats } from 'node:fs';
import { ConfigError } from '../shared/errors.js';

/** config.yaml and .env are a few kilobytes; past this a file is not one of them. */
export const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

/** What a file that is not a regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

function notRegular(file: string, stats: Stats): ConfigError {
  return new ConfigError(
    `${file}: is ${kindOf(stats)}, not a regular file; it was not read (replace it with a plain file, e.g. \`rm ${file}\` and run hermes setup or hermes config set)`,
  );
}

/**
 * The text of a configuration file (`config.yaml`, `.env`), or undefined when it does not
 * exist. Only a regular file is read (a symlink to one is followed); a FIFO, socket, device
 * or directory, or a symlink to one, is refused with a ConfigError naming the file, without
 * blocking: the path is checked first, then opened with O_NONBLOCK (so a FIFO swapped in
 * between cannot hold the open) and checked again on the open descriptor, which is what is
 * read. Every reader of these files goes through here.
 */
export function readConfigText(file: string): string | undefined {
  let before: Stats;
  try {
    before = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ConfigError(`${file}: cannot read: ${(error as Error).message}`, { cause: error });
  }
  if (!before.isFile()) throw notRegular(file, before);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // A socket swapped in after the check: opening it fails with ENXIO.
    throw new ConfigError(`${file}: cannot read: ${(error as Error).message}`, { cause: error });
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw notRegular(file, opened);
    if (opened.size > MAX_CONFIG_FILE_BYTES) {
      throw new ConfigError(`${file}: is ${opened.size} bytes, more than a configuration file holds (${MAX_CONFIG_FILE_BYTES}); it was not read`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
