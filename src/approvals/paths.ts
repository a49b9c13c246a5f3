import { posix } from 'node:path';

/** Where the command would land: the user's home, HERMES_HOME and the gateway itself, as the checks see them. */
export interface PathContext {
  home: string;
  hermesHome: string;
  /** The gateway's own pid, so commands that would kill it are caught; defaults to this process. */
  gatewayPid?: number;
}

/**
 * A path word as the shell would expand the parts that matter here: `~`, `$HOME`,
 * `${HOME}` and `$HERMES_HOME` become real folders; a relative path is joined to `cwd`
 * when that is known; `..` and trailing `/` are folded. Other relative paths stay relative.
 */
export function expandPath(word: string, ctx: PathContext, cwd?: string): string {
  let path = word
    .replace(/^~(?=\/|$)/, ctx.home)
    .replace(/^~([A-Za-z_][\w-]*)(?=\/|$)/, (_all, user: string) => (user === 'root' ? '/root' : `/home/${user}`))
    .replace(/^\$\{?HOME\}?(?=\/|$)/, ctx.home)
    .replace(/^\$\{?HERMES_HOME\}?(?=\/|$)/, ctx.hermesHome);
  if (!path.startsWith('/') && cwd && !path.includes('\0')) path = posix.join(cwd, path);
  if (!path.startsWith('/')) return path;
  path = posix.normalize(path);
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

/** `/usr/*`, `/usr/.`, `~/*` name the folder itself for a recursive delete. */
export function globParent(path: string): string {
  let out = path;
  while (/\/(\*|\.\*|\.|\[[^\]/]*\]\*?|\?+|\*\*)$/.test(out)) out = out.replace(/\/(\*|\.\*|\.|\[[^\]/]*\]\*?|\?+|\*\*)$/, '') || '/';
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
  '/mnt', '/media',
]);

/** A glob (`/e?c`, `/???`, `/*`) as a regular expression over whole paths. */
function globRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        out += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Folders the floor protects: the system folders, the home folder and its parent, and every user's home. */
function isProtectedFolder(path: string, ctx: PathContext): boolean {
  if (SYSTEM_FOLDERS.has(path) || path === ctx.home) return true;
  if (path === posix.dirname(ctx.home) && ctx.home !== '/') return true;
  return /^\/(home|Users)\/[^/]+$/.test(path);
}

/** A recursive operation on this path (or on whatever its glob matches) would wreck the system or a home folder. */
export function isCatastrophicTarget(word: string, ctx: PathContext, cwd?: string): boolean {
  // An empty word names nothing (`rm -rf ""` fails); one known only at run time is judged by the callers.
  if (word === '' || word.includes('\0')) return false;
  const path = globParent(expandPath(word, ctx, cwd));
  if (!path.startsWith('/')) return false;
  if (isProtectedFolder(path, ctx)) return true;
  if (!/[*?[]/.test(path)) return false;
  // `/e??`, `/u*`, `/home/*/`: a glob that can match a protected folder reaches it.
  const pattern = globRegex(path);
  const known = [...SYSTEM_FOLDERS, ctx.home, posix.dirname(ctx.home), '/home/user', '/Users/user'];
  return known.some((folder) => pattern.test(folder)) || /^\/(home|Users)\/[^/]*[*?[]/.test(path);
}

/** /dev entries that are not disks (`/dev/tcp/…` and `/dev/udp/…` are bash's network connections, judged apart). */
const HARMLESS_DEVICES = /^\/dev\/(null|zero|full|random|urandom|stdout|stderr|stdin|tty\w*|pts\/\d+|fd\/\d+|shm(\/.*)?|ptmx|console|(tcp|udp)\/.*)$/;

/** A block device or another /dev entry that writing to would destroy data. */
export const isDiskDevice = (path: string): boolean => path.startsWith('/dev/') && !HARMLESS_DEVICES.test(path) && !path.includes('\0');
