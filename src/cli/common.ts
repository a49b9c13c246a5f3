import type { Command } from 'commander';
import { loadSettings, type ConfigOverrides, type Settings } from '../config/index.js';
import { PRIVATE_FOLDER_MODE, restrictMode } from '../shared/private-files.js';
import { givePlatformSchemas } from '../../adapters/config.js';

/** The `--home` given to the top-level program, if any. */
export function homeOption(command: Command): string | undefined {
  let root: Command = command;
  while (root.parent) root = root.parent;
  return root.opts<{ home?: string }>().home;
}

/** Loads the settings for a command and prints their warnings (unknown keys) to stderr. */
export function loadForCli(command: Command, overrides?: ConfigOverrides): Settings {
  // config.yaml's platform sections are read with each platform's own schema (zod only; --help never gets here).
  givePlatformSchemas();
  const loaded = loadSettings({ home: homeOption(command), overrides });
  for (const warning of loaded.warnings) console.error(`warning: ${warning}`);
  // HERMES_HOME holds the sessions, the logs and .env: only its user enters it (an older 0755 one is tightened).
  restrictMode(loaded.paths.home, PRIVATE_FOLDER_MODE);
  return loaded;
}
