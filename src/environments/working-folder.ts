import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Logger } from '../shared/logger.js';

/** The folder commands and scripts start in, and why it is not the configured one. */
export interface WorkingFolder {
  cwd: string;
  /** Set when `terminal.cwd` names no folder here: what was asked, what is used instead. */
  note?: string;
}

export interface WorkingFolderOptions {
  /** The backend runs elsewhere (SSH, Docker, most plugins): the path means nothing on this host. */
  remote?: boolean;
  /** Warned once per configured value when it falls back. */
  logger?: Logger;
  /** Where a missing folder falls back to; the gateway's own by default. */
  fallback?: string;
}

const warned = new Set<string>();

/** `~` and `~/…` against the home folder, then resolved against the gateway's folder. */
export function expandHome(path: string, home = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return resolve(home, path.slice(2));
  return resolve(path);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The one place `terminal.cwd` becomes a working folder (the environment manager, the
 * executor's default environment and the agent all ask here). On this host `~` is expanded
 * and a folder that does not exist falls back to the gateway's own with a note and a log
 * warning, instead of every command and script failing to start. A remote backend's path is
 * taken as given, as before.
 */
export function resolveWorkingFolder(configured: string | null | undefined, options: WorkingFolderOptions = {}): WorkingFolder {
  const fallback = options.fallback ?? process.cwd();
  if (!configured) return { cwd: fallback };
  if (options.remote) return { cwd: resolve(configured) };
  const wanted = expandHome(configured);
  if (isFolder(wanted)) return { cwd: wanted };
  const note =
    `terminal.cwd ${JSON.stringify(configured)} is not a folder on this host` +
    `${wanted !== configured ? ` (${wanted})` : ''}; commands and scripts run in ${fallback}, the gateway's own folder, instead. ` +
    'Fix terminal.cwd in config.yaml or create the folder.';
  if (options.logger && !warned.has(wanted)) {
    warned.add(wanted);
    options.logger.warn({ cwd: configured, fallback }, note);
  }
  return { cwd: fallback, note };
}
