import type { Command } from 'commander';
import { loadConfig, type LoadedConfig, type ConfigOverrides } from '../config/index.js';

/** The `--home` given to the top-level program, if any. */
export function homeOption(command: Command): string | undefined {
  let root: Command = command;
  while (root.parent) root = root.parent;
  return root.opts<{ home?: string }>().home;
}

/** Loads the configuration for a command and prints its warnings (unknown keys) to stderr. */
export function loadForCli(command: Command, overrides?: ConfigOverrides): LoadedConfig {
  const loaded = loadConfig({ home: homeOption(command), overrides });
  for (const warning of loaded.warnings) console.error(`warning: ${warning}`);
  return loaded;
}
