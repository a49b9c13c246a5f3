import { dirname } from 'node:path';
import type { SystemMount } from './system-view.js';

/**
 * What a sandboxed process sees; every path is a host path, mounted at the same place.
 * Nothing else of the host is there: the root is an empty tmpfs that these parts fill.
 */
export interface SandboxLayout {
  /** Mounted read-write: the session's workspace; commands start there. */
  workspace: string;
  /** A private host folder mounted as /tmp, so /tmp lasts between a session's commands but is not the host's. */
  tmp: string;
  /** The gateway's spill folder, shown read-only inside the private /tmp. */
  spill?: { host: string; visible: string };
  /** Keep the host's network (otherwise a new network namespace with only loopback). */
  network: boolean;
  /** The system, read-only: /usr, /bin, /lib*, /sbin and /etc (symlinks kept as symlinks), from systemView(). */
  system: readonly SystemMount[];
  /** Files and folders under the system mounts that must not be seen (shadow files, private keys). */
  masks: readonly SystemMount[];
  /** Host paths visible read-only: the interpreter's prefix, the kernel runner, `terminal.sandbox.extra_ro_binds`. */
  readOnly: readonly string[];
  /** Host folders inside the workspace hidden behind an empty tmpfs (HERMES_HOME, should the workspace hold it). */
  hide: readonly string[];
  /** Host paths mounted read-write, after everything else (the staging folder with the RPC socket). */
  binds: readonly string[];
  /** The working folder inside the sandbox. */
  chdir: string;
  /**
   * Gateway as root: the sandbox's processes become this host user before anything of the
   * command runs (bwrap keeps only the capabilities to switch, and the switch drops them).
   * Without it bwrap runs as the gateway's own user in a user namespace of its own.
   */
  dropTo?: { uid: number; gid: number };
  /** bwrap 0.8+: no user namespace may be made inside (`--disable-userns`; plain user only). */
  disableUserns?: boolean;
}

/**
 * bubblewrap's arguments, up to and including `--`. Mount order matters: later mounts
 * cover earlier ones, so the system comes first, the workspace and staging last, and the
 * read-only parts after the workspace so a workspace that holds them cannot make them writable.
 */
export function bwrapArgs(layout: SandboxLayout): string[] {
  const args: string[] = [];
  for (const mount of layout.system) args.push(...mountArgs(mount));
  args.push('--dev', '/dev', '--proc', '/proc', '--bind', layout.tmp, '/tmp');
  if (layout.spill) args.push('--ro-bind', layout.spill.host, layout.spill.visible);
  for (const folder of mountPointParents(layout)) args.push('--perms', '0755', '--dir', folder);
  args.push('--bind', layout.workspace, layout.workspace);
  for (const path of layout.readOnly) args.push('--ro-bind-try', path, path);
  for (const path of layout.hide) args.push('--tmpfs', path);
  for (const path of layout.binds) args.push('--bind', path, path);
  for (const mask of layout.masks) args.push(...maskArgs(mask));
  // The root is bwrap's own tmpfs: read-only, so nothing can be written outside the workspace and /tmp and then vanish.
  args.push('--remount-ro', '/');
  args.push(
    // A new PID namespace: when bwrap's init dies, every process in it dies, setsid or not.
    '--unshare-pid', '--unshare-ipc', '--unshare-uts',
    // Without the host's network namespace, abstract Unix sockets of the host are out of reach too.
    ...(layout.network ? [] : ['--unshare-net']),
    '--hostname', 'hermes-sandbox',
    '--die-with-parent',
    // No TIOCSTI into the gateway's terminal.
    '--new-session',
    // When the gateway runs as root, bwrap would keep root's capabilities (remount, …). Those
    // kept to drop to the sandbox's user are gone once it has (see payloadPrefix).
    '--cap-drop', 'ALL',
    ...(layout.dropTo ? ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP', '--cap-add', 'CAP_DAC_OVERRIDE'] : ['--unshare-user', ...(layout.disableUserns ? ['--disable-userns'] : [])]),
    '--chdir', layout.chdir,
    '--',
  );
  return args;
}

/**
 * The folders above each mount point that bwrap would make itself, with the mode of the host
 * folder above the source (0700 under a private home): made 0755 first, so the sandbox's user
 * can walk to its workspace by its full path. Not those in the system's read-only parts.
 */
function mountPointParents(layout: SandboxLayout): string[] {
  const system = layout.system.map((mount) => mount.path);
  const out = new Set<string>();
  for (const destination of [layout.workspace, ...layout.readOnly, ...layout.binds]) {
    let parent = dirname(destination);
    const chain: string[] = [];
    while (parent !== '/' && parent !== '/tmp' && parent !== '.') {
      chain.unshift(parent);
      parent = dirname(parent);
    }
    for (const folder of chain) if (!system.some((root) => folder === root || folder.startsWith(`${root}/`))) out.add(folder);
  }
  return [...out];
}

function mountArgs(mount: SystemMount): string[] {
  return mount.kind === 'symlink' ? ['--symlink', mount.target, mount.path] : ['--ro-bind', mount.path, mount.path];
}

/** A file is covered by /dev/null, a folder by an empty read-only tmpfs. */
function maskArgs(mask: SystemMount): string[] {
  if (mask.kind === 'folder') return ['--tmpfs', mask.path, '--remount-ro', mask.path];
  return ['--ro-bind', '/dev/null', mask.path];
}

/** Where the helpers that start a sandboxed command live (util-linux; inside the view, /usr is the host's). */
export interface PayloadTools {
  setpriv: string;
  prlimit: string;
  /** util-linux `unshare`, when a user namespace may be made after the drop (per-sandbox process counting). */
  unshare?: string;
  /** This bwrap knows `--disable-userns` (0.8 and later). */
  disableUserns?: boolean;
}

/**
 * What runs inside bubblewrap before the command: gateway as root, `setpriv` makes it the
 * sandbox's host user with no capability, no bounding set and no groups, and `unshare` gives
 * it a user namespace of its own (so RLIMIT_NPROC counts this sandbox's processes only); then
 * `prlimit` sets the limits, soft and hard, and execs the command.
 */
export function payloadPrefix(tools: PayloadTools, dropTo: { uid: number; gid: number } | undefined, limits: readonly string[]): string[] {
  const drop = dropTo
    ? [
        tools.setpriv, `--reuid=${dropTo.uid}`, `--regid=${dropTo.gid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--',
        ...(tools.unshare ? [tools.unshare, '--user', '--map-current-user', '--'] : []),
      ]
    : [];
  return [...drop, tools.prlimit, ...limits, '--'];
}
