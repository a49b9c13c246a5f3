import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** Where and how to reach the build box (the `terminal.ssh` keys). */
export interface SshTarget {
  host: string;
  /** Empty: ssh's default (the local user name or ~/.ssh/config). */
  user: string;
  port: number;
  /** Private key file; empty uses ssh's defaults. */
  key: string;
  /** Keep one shared master connection between commands (ControlMaster/ControlPersist). */
  persistent: boolean;
  /** Seconds. */
  connectTimeout: number;
}

/**
 * The ControlPath of a target: under /tmp and hashed, because Unix socket paths are short
 * (104 bytes on macOS) and a long user@host would not fit. `salt` keeps environments apart.
 */
export function controlPath(target: SshTarget, salt: string): string {
  const digest = createHash('sha256').update(`${target.user}@${target.host}:${target.port}\0${salt}`).digest('hex').slice(0, 16);
  return `/tmp/hermes-ssh-${digest}.sock`;
}

/** `user@host`, or `host` when no user is set. */
export function destination(target: SshTarget): string {
  return target.user ? `${target.user}@${target.host}` : target.host;
}

/**
 * The options every ssh invocation of a target shares: no prompts, new host keys accepted
 * into HERMES_HOME's own known_hosts (changed ones refused), a connect timeout, and the
 * shared master connection when `persistent`.
 */
export function sshOptions(target: SshTarget, options: { controlPath: string; hermesHome: string }): string[] {
  const args = [
    '-o', 'BatchMode=yes',
    '-o', 'StrictHostKeyChecking=accept-new',
    '-o', `UserKnownHostsFile=${join(options.hermesHome, 'ssh', 'known_hosts')}`,
    '-o', `ConnectTimeout=${Math.max(1, Math.round(target.connectTimeout))}`,
    '-o', 'LogLevel=ERROR',
    '-o', 'ServerAliveInterval=15',
    '-p', String(target.port),
  ];
  if (target.key) args.push('-i', target.key, '-o', 'IdentitiesOnly=yes');
  if (target.persistent) {
    args.push('-o', 'ControlMaster=auto', '-o', 'ControlPersist=600', '-o', `ControlPath=${options.controlPath}`);
  } else {
    args.push('-o', 'ControlMaster=no', '-o', 'ControlPath=none');
  }
  return args;
}

/** ssh quotes nothing: the remote login shell parses the joined words, so each is quoted here. */
export function remoteCommandLine(argv: string[]): string {
  return argv.map((word) => (/^[A-Za-z0-9_./=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** `ssh <options> -T <dest> -- <command>`: runs argv on the target, stdin attached. */
export function sshCommand(target: SshTarget, base: string[], argv: string[]): string[] {
  return [...base, '-T', destination(target), '--', remoteCommandLine(argv)];
}

/** `ssh -O exit`: closes the shared master connection. */
export function sshExitMaster(target: SshTarget, controlPathValue: string): string[] {
  return ['-o', `ControlPath=${controlPathValue}`, '-p', String(target.port), '-O', 'exit', destination(target)];
}
