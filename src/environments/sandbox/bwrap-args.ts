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
    // When the gateway runs as root, bwrap would keep root's capabilities (remount, …).
    '--cap-drop', 'ALL',
    '--chdir', layout.chdir,
    '--',
  );
  return args;
}

function mountArgs(mount: SystemMount): string[] {
  return mount.kind === 'symlink' ? ['--symlink', mount.target, mount.path] : ['--ro-bind', mount.path, mount.path];
}

/** A file is covered by /dev/null, a folder by an empty read-only tmpfs. */
function maskArgs(mask: SystemMount): string[] {
  if (mask.kind === 'folder') return ['--tmpfs', mask.path, '--remount-ro', mask.path];
  return ['--ro-bind', '/dev/null', mask.path];
}
