import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveHome } from '../config/paths.js';
import type { Logger } from '../shared/logger.js';

/** The agent's own folder under HERMES_HOME, where commands, scripts, `uploads/` and the files it makes go by default. */
export const WORKSPACE_FOLDER = 'workspace';

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
  /** Where a missing folder falls back to; HERMES_HOME/workspace by default. */
  fallback?: string;
  /** HERMES_HOME (the settings' `paths.home`; every caller in the gateway gives it); `~/.hermes` when not given. */
  home?: string;
}

/**
 * HERMES_HOME/workspace, made when missing: the working folder when `terminal.cwd` names none,
 * the same whichever folder the gateway was started in (a clone, the systemd unit's, `hermes chat`'s).
 */
export function defaultWorkingFolder(home?: string): string {
  const folder = join(home ? resolveHome(home) : resolveHome(undefined, {}), WORKSPACE_FOLDER);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch {
    // Unwritable HERMES_HOME: the first command's own error says where.
  }
  return folder;
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
 * executor's default environment and the agent all ask here). Unset, it is
 * HERMES_HOME/workspace on this host, one folder for the gateway (the local backend shares
 * one environment between threads; isolating backends keep their own per-session folders).
 * On this host `~` is expanded and a folder that does not exist falls back to the workspace
 * with a note and a log warning, instead of every command and script failing to start. A
 * remote backend's path is taken as given, and unset it is the gateway's folder, as before.
 */
export function resolveWorkingFolder(configured: string | null | undefined, options: WorkingFolderOptions = {}): WorkingFolder {
  if (options.remote) return { cwd: configured ? resolve(configured) : (options.fallback ?? process.cwd()) };
  const fallback = options.fallback ?? defaultWorkingFolder(options.home);
  if (!configured) return { cwd: fallback };
  const wanted = expandHome(configured);
  if (isFolder(wanted)) return { cwd: wanted };
  const note =
    `terminal.cwd ${JSON.stringify(configured)} is not a folder on this host` +
    `${wanted !== configured ? ` (${wanted})` : ''}; commands and scripts run in ${fallback} instead. ` +
    'Fix terminal.cwd in config.yaml or create the folder.';
  if (options.logger && !warned.has(wanted)) {
    warned.add(wanted);
    options.logger.warn({ cwd: configured, fallback }, note);
  }
  return { cwd: fallback, note };
}
