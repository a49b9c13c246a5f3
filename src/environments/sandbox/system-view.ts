import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

/** One part of the sandbox's view: a folder or file bound read-only, or a symlink recreated as it is. */
export type SystemMount =
  | { kind: 'folder' | 'file'; path: string }
  | { kind: 'symlink'; path: string; target: string };

/** What programs need of the system: binaries, libraries, and /etc (less its secrets). */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** Files under /etc that hold secrets: password hashes, private keys, sudo rules. */
const SECRET_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/security/opasswd', '/etc/sudoers'];
/** Folders under /etc whose whole content is secret. */
const SECRET_FOLDERS = ['/etc/ssl/private', '/etc/pki/tls/private', '/etc/sudoers.d', '/etc/hermes'];
/** Private keys by name anywhere directly in these folders (the host's SSH keys). */
const KEY_FOLDERS = ['/etc/ssh'];
const PRIVATE_KEY = /(^ssh_host_.*_key$)|(\.key$)|(\.pem$)/;

function probe(path: string): SystemMount | undefined {
  try {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return { kind: 'symlink', path, target: readlinkSync(path) };
    if (info.isDirectory()) return { kind: 'folder', path };
    if (info.isFile()) return { kind: 'file', path };
  } catch {
    // not on this system
  }
  return undefined;
}

let cached: { system: SystemMount[]; masks: SystemMount[] } | undefined;

/**
 * The system part of the view, read from this host once: each of /usr, /bin, /lib*, /sbin and
 * /etc that exists (symlinks such as a merged /usr's `/bin -> usr/bin` stay symlinks), and the
 * masks that cover secrets under /etc.
 */
export function systemView(): { system: readonly SystemMount[]; masks: readonly SystemMount[] } {
  if (cached) return cached;
  const system = SYSTEM_PATHS.map(probe).filter((mount): mount is SystemMount => mount !== undefined);
  const masks: SystemMount[] = [];
  for (const path of SECRET_FILES) {
    const found = probe(path);
    if (found?.kind === 'file') masks.push(found);
  }
  for (const path of SECRET_FOLDERS) {
    const found = probe(path);
    if (found?.kind === 'folder') masks.push(found);
  }
  for (const folder of KEY_FOLDERS) {
    let names: string[] = [];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const found = PRIVATE_KEY.test(name) ? probe(join(folder, name)) : undefined;
      if (found?.kind === 'file') masks.push(found);
    }
  }
  cached = { system, masks };
  return cached;
}

/** True when `path` is `folder` or inside it. */
export function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Why a folder cannot be a sandbox's writable workspace, or undefined when it can: `/`, a
 * system folder, or a folder holding one would put the system itself in the writable part.
 */
export function unsafeWorkspace(workspace: string): string | undefined {
  const real = realOrSelf(workspace);
  if (real === '/') return 'it is the root folder';
  for (const path of SYSTEM_PATHS) {
    const system = realOrSelf(path);
    if (inside(system, real)) return `it is inside the system folder ${path}, which the sandbox keeps read-only`;
    if (inside(real, system)) return `it holds the system folder ${path}`;
  }
  for (const path of ['/proc', '/dev', '/sys', '/run', '/var/run']) {
    if (inside(path, real) || inside(real, path)) return `it is or holds ${path}`;
  }
  return undefined;
}

/** A path with its symlinks resolved (the kernel's view of where a mount lands), or as given when it does not exist. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Where `/etc/resolv.conf` really lives, when it points outside /etc (systemd-resolved keeps it in /run). */
export function resolverPath(): string | undefined {
  const real = realOrSelf('/etc/resolv.conf');
  return inside('/etc', real) ? undefined : real;
}
