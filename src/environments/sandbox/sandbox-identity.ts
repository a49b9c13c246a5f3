import { createHash } from 'node:crypto';
import { chmodSync, chownSync, lchownSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BackendError } from '../registry.js';

/** The host user and group a sandbox's processes run as when the gateway runs as root. */
export interface SandboxIdentity {
  uid: number;
  gid: number;
}

/** Session uids run from `terminal.sandbox.uid` over this many ids. */
export const SESSION_UID_SPAN = 65_536;

/** True when this process is root, the case where the sandbox must drop to another user. */
export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * The host id of a session's own sandbox: `base` plus a number from the folder's name, so
 * that sessions are (but for a rare collision) different users on the host: their folders are
 * closed to each other, and RLIMIT_NPROC counts each session's processes apart.
 */
export function sessionIdentity(base: number, folderName: string): SandboxIdentity {
  const offset = createHash('sha256').update(folderName).digest().readUInt32BE(0) % SESSION_UID_SPAN;
  return { uid: base + offset, gid: base + offset };
}

/**
 * The host id a sandbox working in `terminal.cwd` runs as, gateway as root: the folder's
 * owner when that is a user (the project is theirs, and what the sandbox writes stays theirs);
 * when root owns it, `base` takes it over if it is empty, and otherwise it is refused — the
 * sandbox cannot write root's files without being root, and the gateway will not give away a
 * folder that holds root's files.
 */
export function projectIdentity(base: number, folder: string): SandboxIdentity {
  const info = statSync(folder);
  if (info.uid !== 0) return { uid: info.uid, gid: info.gid };
  if (readdirSync(folder).length === 0) {
    chownSync(folder, base, base);
    return { uid: base, gid: base };
  }
  throw new BackendError(
    'SANDBOX_WORKSPACE_UNSAFE',
    `terminal.cwd: ${folder} is owned by root and not empty. The gateway runs as root, and its sandbox runs as an unprivileged user (so that nothing made inside is root's on the host), which cannot write root's files. ` +
      `Give the folder to the user the project belongs to (chown -R <user>: ${folder}; the sandbox then runs as that user) or to the sandbox's own id (chown -R ${base}:${base} ${folder}), or leave terminal.cwd empty for a folder per session.`,
  );
}

/** Makes `folder` (mode 0700) and gives it, and everything in it not already theirs, to `identity`. */
export function ownFolder(folder: string, identity: SandboxIdentity | undefined): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
  if (!identity) return;
  const info = statSync(folder);
  if (info.uid === identity.uid && info.gid === identity.gid) return;
  chownTree(folder, identity);
}

/** chown -R without following symlinks (a symlink inside must not give away what it points to). */
function chownTree(path: string, identity: SandboxIdentity): void {
  lchownSync(path, identity.uid, identity.gid);
  const info = lstatSync(path);
  if (!info.isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), identity);
}

/** Gives the folders a process must write (a staging folder and what is directly in it) to `identity`. */
export function shareFolder(folder: string, identity: SandboxIdentity): void {
  try {
    lchownSync(folder, identity.uid, identity.gid);
    for (const name of readdirSync(folder)) lchownSync(join(folder, name), identity.uid, identity.gid);
  } catch {
    // not there (yet): the process will fail on it, as it would have
  }
}

/**
 * Folders on the way to a mount point under the sandbox's /tmp (a workspace or staging folder
 * that lives under the host's /tmp) exist in the private /tmp folder: made here, the sandbox
 * user's, so that it can walk to them (bwrap would make them root's, and closed).
 */
export function mountPointFolders(privateTmp: string, destinations: readonly string[], identity: SandboxIdentity): void {
  for (const destination of destinations) {
    if (!destination.startsWith('/tmp/')) continue;
    let current = privateTmp;
    const parts = destination.slice('/tmp/'.length).split('/').filter(Boolean);
    for (const part of parts) {
      current = join(current, part);
      try {
        mkdirSync(current, { mode: 0o755 });
        chownSync(current, identity.uid, identity.gid);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
      }
    }
  }
}
