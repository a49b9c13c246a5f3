import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';

/**
 * Files only the gateway's user may read: the state database, its WAL files and the logs
 * (0600) in folders only it may enter (0700, HERMES_HOME and logs/). Modes are set on
 * open, so a file or folder made earlier with looser modes is tightened too. A mode that
 * cannot be changed (someone else's file) is left as it is: the caller goes on.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_FOLDER_MODE = 0o700;

/** chmod when the path exists; false when it does not or the mode cannot be changed. */
export function restrictMode(path: string, mode: number): boolean {
  try {
    chmodSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/** The folder (and any missing parents) made 0700, and made 0700 when it already exists. */
export function privateFolder(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  restrictMode(path, PRIVATE_FOLDER_MODE);
}

/** The file created empty with 0600 when missing (never truncated), and made 0600 when it exists. */
export function privateFile(path: string): void {
  try {
    closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  } catch {
    // Unwritable here: the caller's own open says why.
  }
  restrictMode(path, PRIVATE_FILE_MODE);
}
