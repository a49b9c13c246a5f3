/*
 * The edge where the settings are read: the environment (through ./environment.ts, the one
 * module here that touches the process's), HERMES_HOME/.env and config.yaml, once, into one
 * frozen Settings snapshot. Everything else is handed that snapshot.
 */
import { setChildTimezone } from '../environments/child-env.js';
import { loadDotEnv } from './dotenv.js';
import { deepMerge, readYamlFile, validateConfig } from './load.js';
import { hermesPaths, type HermesPaths } from './paths.js';
import type { ConfigOverrides } from './schema.js';
import { processEnvironment } from './environment.js';
import { createSettings, type Settings } from './settings.js';

export interface LoadConfigOptions {
  /** HERMES_HOME; defaults to the `HERMES_HOME` variable, then `~/.hermes`. */
  home?: string;
  /** Laid over the file's values before validation. */
  overrides?: ConfigOverrides;
  /** Lay HERMES_HOME/.env under the environment first (default true). */
  loadEnv?: boolean;
  /** The environment to read (and lay `.env` under); the process's by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Reads the environment, HERMES_HOME/.env (under it: a variable already set wins) and
 * config.yaml with the overrides and defaults, validates them, and returns one frozen
 * snapshot. An invalid value fails with a ConfigError naming the file, the key path and why.
 */
export function loadSettings(options: LoadConfigOptions = {}): Settings {
  const env = options.env ?? processEnvironment();
  const paths = hermesPaths(options.home, env);
  // Into the process's environment too, as at every start: children choose from it (child-env.ts).
  if (options.loadEnv !== false) loadDotEnv(paths.env, env);
  const merged = deepMerge(readYamlFile(paths.config), options.overrides ?? {});
  const { config, warnings } = validateConfig(merged, paths.config);
  // Children get TZ from it (src/environments/child-env.ts); HERMES_TIMEZONE overrides it there.
  setChildTimezone(config.timezone);
  return createSettings({ config, paths, env, warnings });
}

/** The name the configuration has always been loaded by; the same snapshot as {@link loadSettings}. */
export const loadConfig = loadSettings;

/** HERMES_HOME's paths for `home`, else as the process's environment says (HERMES_HOME, HERMES_CONFIG). */
export function pathsFor(home: string | undefined): HermesPaths {
  return hermesPaths(home, processEnvironment());
}
