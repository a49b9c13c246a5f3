import { posix } from 'node:path';

/** Where the command would land: the user's home and HERMES_HOME, as the checks see them. */
export interface PathContext {
  home: string;
  hermesHome: string;
}

/**
 * A path word as the shell would expand the parts that matter here: `~`, `$HOME`,
 * `${HOME}` and `$HERMES_HOME` become real folders; `..` and trailing `/` are folded.
 * Relative paths stay relative.
 */
export function expandPath(word: string, ctx: PathContext): string {
  let path = word
    .replace(/^~(?=\/|$)/, ctx.home)
    .replace(/^~([A-Za-z_][\w-]*)(?=\/|$)/, '/home/$1')
    .replace(/^\$\{?HOME\}?(?=\/|$)/, ctx.home)
    .replace(/^\$\{?HERMES_HOME\}?(?=\/|$)/, ctx.hermesHome);
  if (!path.startsWith('/')) return path;
  path = posix.normalize(path);
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

/** `/usr/*`, `/usr/.`, `~/*` name the folder itself for a recursive delete. */
export function globParent(path: string): string {
  let out = path;
  while (/\/(\*|\.\*|\.)$/.test(out)) out = out.replace(/\/(\*|\.\*|\.)$/, '') || '/';
  return out === '' ? '/' : out;
}

/** True when `path` is `folder` or inside it. */
export function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`);
}

/** Top-level folders whose loss breaks the system. */
export const SYSTEM_FOLDERS = new Set([
  '/', '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib32', '/lib64', '/libx32', '/opt', '/proc', '/root',
  '/run', '/sbin', '/srv', '/sys', '/usr', '/var', '/snap', '/nix', '/System', '/Library', '/Applications', '/Users',
  '/private', '/usr/bin', '/usr/lib', '/usr/sbin', '/usr/local', '/usr/share', '/var/lib', '/var/log', '/etc/ssh',
]);

/** A recursive operation on this path would wreck the system or the user's home. */
export function isCatastrophicTarget(word: string, ctx: PathContext): boolean {
  const path = globParent(expandPath(word, ctx));
  if (!path.startsWith('/')) return false;
  return SYSTEM_FOLDERS.has(path) || path === ctx.home || path === posix.dirname(ctx.home) && ctx.home !== '/';
}
