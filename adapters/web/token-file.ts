import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { WebChatError } from './access.js';

/**
 * The web chat's own login token, made once and kept in a file only this user can read
 * (`HERMES_HOME/web/token`, mode 0600), so the address printed at start-up stays the same
 * across restarts. Returns the token and whether this call made it.
 */
export function loadOrCreateToken(file: string): { token: string; created: boolean } {
  const existing = readToken(file);
  if (existing) return { token: existing, created: false };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const token = randomBytes(24).toString('hex');
  // Written under another name and linked into place: a reader never sees half a token, and
  // of two gateways starting at once the second finds the first one's token.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, token + '\n', { mode: 0o600, flag: 'wx' });
  try {
    if (existing === '') rmSync(file, { force: true });
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const theirs = readToken(file);
    if (!theirs) throw error;
    return { token: theirs, created: false };
  } finally {
    rmSync(temp, { force: true });
  }
  return { token, created: true };
}

/** The token in `file`; undefined when there is none, '' when the file is empty. */
function readToken(file: string): string | undefined {
  let fd: number;
  try {
    // No symlinks: the file must be this user's own, not one pointed at from elsewhere.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new WebChatError('WEB_TOKEN_FILE', `web chat: cannot read its token file ${file} (${code ?? String(error)}); delete it to make a new one`, { cause: error });
  }
  try {
    const stat = fstatSync(fd);
    const mine = process.getuid === undefined || stat.uid === process.getuid();
    if (!stat.isFile() || !mine || (stat.mode & 0o077) !== 0) {
      throw new WebChatError(
        'WEB_TOKEN_FILE',
        `web chat: its token file ${file} is not a private file of this user (mode ${(stat.mode & 0o777).toString(8)}), ` +
          'so others may know the token: delete it, and the next start makes a new one',
      );
    }
    return readFileSync(fd, 'utf8').trim();
  } finally {
    closeSync(fd);
  }
}
