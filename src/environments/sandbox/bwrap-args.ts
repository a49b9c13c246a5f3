/** What a sandboxed process sees; every path is a host path. */
export interface SandboxLayout {
  /** Mounted read-write at the same path: the session's workspace. */
  workspace: string;
  /** A private host folder mounted as /tmp, so /tmp lasts between a session's commands but is not the host's. */
  tmp: string;
  /** Keep the host's network (otherwise a new network namespace with only loopback). */
  network: boolean;
  /** More host paths visible read-only (they are already, unless hidden; listed to undo a hide). */
  extraRoBinds: readonly string[];
  /** Host folders hidden behind an empty tmpfs (HERMES_HOME: its .env holds the gateway's secrets). */
  hide: readonly string[];
  /** Host paths mounted read-write at the same path, after everything else (the RPC socket's folder, staging). */
  binds: readonly string[];
  /** The working folder inside the sandbox. */
  chdir: string;
}

/**
 * bubblewrap's arguments, up to and including `--`. Mount order matters: later mounts
 * cover earlier ones, so the read-only root comes first and the writable paths last.
 */
export function bwrapArgs(layout: SandboxLayout): string[] {
  const args = [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--bind', layout.tmp, '/tmp',
  ];
  for (const path of layout.hide) args.push('--tmpfs', path);
  for (const path of layout.extraRoBinds) args.push('--ro-bind-try', path, path);
  args.push('--bind', layout.workspace, layout.workspace);
  for (const path of layout.binds) args.push('--bind', path, path);
  args.push(
    // A new PID namespace: when bwrap's init dies, every process in it dies, setsid or not.
    '--unshare-pid', '--unshare-ipc', '--unshare-uts',
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
