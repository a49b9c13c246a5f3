/*
 * Files and folders that no command or file tool should change without the user knowing:
 * credentials, shell start-up files (they run at every login), and HERMES_HOME (the
 * gateway's own settings, secrets, plugins and skills, where a change lasts past the turn).
 */
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { expandPath, within, type PathContext } from './paths.js';

export interface SensitivePath {
  /** `~/…` is the home folder, `$HERMES_HOME/…` HERMES_HOME; a trailing `/` means the folder and everything in it. */
  path: string;
  reason: string;
}

export const SENSITIVE_PATHS: readonly SensitivePath[] = [
  { path: '~/.ssh/', reason: 'SSH keys and access' },
  { path: '~/.aws/', reason: 'AWS credentials' },
  { path: '~/.gnupg/', reason: 'GnuPG keys' },
  { path: '~/.kube/', reason: 'Kubernetes credentials' },
  { path: '~/.docker/', reason: 'Docker registry credentials' },
  { path: '~/.config/gh/', reason: 'GitHub CLI credentials' },
  { path: '~/.config/gcloud/', reason: 'Google Cloud credentials' },
  { path: '~/.azure/', reason: 'Azure credentials' },
  { path: '~/.netrc', reason: 'stored passwords (netrc)' },
  { path: '~/.git-credentials', reason: 'stored git passwords' },
  { path: '~/.npmrc', reason: 'npm tokens' },
  { path: '~/.pypirc', reason: 'PyPI tokens' },
  { path: '~/.pgpass', reason: 'stored PostgreSQL passwords' },
  { path: '~/.my.cnf', reason: 'stored MySQL passwords' },
  { path: '~/.password-store/', reason: 'stored passwords' },
  { path: '~/.bashrc', reason: 'runs at every login' },
  { path: '~/.bash_profile', reason: 'runs at every login' },
  { path: '~/.bash_login', reason: 'runs at every login' },
  { path: '~/.bash_logout', reason: 'runs at every logout' },
  { path: '~/.profile', reason: 'runs at every login' },
  { path: '~/.zshrc', reason: 'runs at every login' },
  { path: '~/.zshenv', reason: 'runs at every login' },
  { path: '~/.zprofile', reason: 'runs at every login' },
  { path: '~/.zlogin', reason: 'runs at every login' },
  { path: '~/.zlogout', reason: 'runs at every logout' },
  { path: '~/.kshrc', reason: 'runs at every login' },
  { path: '~/.cshrc', reason: 'runs at every login' },
  { path: '~/.tcshrc', reason: 'runs at every login' },
  { path: '~/.config/fish/', reason: 'runs at every login' },
  { path: '~/.config/autostart/', reason: 'runs at every login' },
  { path: '~/.config/systemd/user/', reason: 'services that start by themselves' },
  { path: '~/.gitconfig', reason: 'git settings (they can run commands)' },
  { path: '$HERMES_HOME/config.yaml', reason: "the gateway's settings (approvals among them)" },
  { path: '$HERMES_HOME/.env', reason: "the gateway's secrets" },
  { path: '$HERMES_HOME/plugins/', reason: "the gateway's plugins (code it loads)" },
  { path: '$HERMES_HOME/skills/', reason: "the gateway's skills" },
  { path: '$HERMES_HOME/approvals.yaml', reason: "the gateway's approval rules" },
  { path: '/etc/', reason: 'system settings' },
];

/** The path as a person reads it: the home folder as `~`. */
function shown(path: string, ctx: PathContext): string {
  if (within(path, ctx.hermesHome) && !within(ctx.home, ctx.hermesHome)) return path;
  return path === ctx.home ? '~' : path.startsWith(`${ctx.home}/`) ? `~${path.slice(ctx.home.length)}` : path;
}

/** Why writing `path` needs the user's approval, or undefined when it does not. */
export function sensitiveWrite(path: string, ctx: PathContext, cwd?: string): string | undefined {
  if (path.includes('\0')) return undefined;
  const expanded = expandPath(path, ctx, cwd);
  // macOS keeps /etc at /private/etc (/etc is a link to it): the same files.
  const full = /^\/private\/etc(\/|$)/.test(expanded) ? expanded.slice('/private'.length) : expanded;
  if (!full.startsWith('/')) return undefined;
  // Another user's home counts as much as this one's (`/root/.ssh`, `/home/bob/.bashrc`).
  const other = /^\/root(?=\/|$)|^\/(home|Users)\/[^/]+/.exec(full)?.[0];
  const homes = other && other !== ctx.home ? [ctx.home, other] : [ctx.home];
  for (const entry of SENSITIVE_PATHS) {
    const folder = entry.path.endsWith('/');
    const base = entry.path.startsWith('~/') ? homeBase(entry.path, full, homes) : expandPath(entry.path.replace(/\/$/, ''), ctx);
    const hit = folder ? within(full, base) && !(base === '/etc' && full === '/etc') : full === base;
    if (hit) return base === '/etc' ? `writes under /etc (${full}: ${entry.reason})` : `writes to ${shown(full, ctx)} (${entry.reason})`;
  }
  return undefined;
}

/** `~/.ssh/` as the home folder among `homes` that `full` is in (the first when none). */
function homeBase(entry: string, full: string, homes: string[]): string {
  const home = homes.find((candidate) => within(full, candidate)) ?? homes[0];
  return `${home}/${entry.slice(2).replace(/\/$/, '')}`;
}

/** The real location of `path` on this host (symlinks followed) as far as it exists; undefined when nothing of it does. */
function realLocation(path: string): string | undefined {
  let head = path;
  let tail = '';
  for (let i = 0; i < 64 && head !== '/'; i++) {
    try {
      const real = realpathSync.native(head);
      return tail ? `${real}/${tail}` : real;
    } catch {
      tail = tail ? `${head.slice(dirname(head).length + 1)}/${tail}` : head.slice(dirname(head).length + 1);
      head = dirname(head);
    }
  }
  return undefined;
}

/**
 * A file tool's write (`write_file`, `patch`) to an absolute path (or `~/…`): `risky` with
 * the reason for credentials, shell start-up files, HERMES_HOME's settings, secrets, plugins
 * and skills, and /etc; else `safe`. A symlink on this host that leads there counts too.
 */
export function fileWriteReason(path: string, ctx: PathContext): string | undefined {
  const direct = sensitiveWrite(path, ctx);
  if (direct) return direct;
  const full = expandPath(path, ctx);
  if (!full.startsWith('/')) return undefined;
  const real = realLocation(full);
  return real && real !== full ? sensitiveWrite(real, ctx) : undefined;
}
