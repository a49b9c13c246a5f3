import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { parseEnv } from 'node:util';
import { readConfigFile } from './load.js';
import { readConfigText } from './safe-read.js';
import type { HermesConfig } from './schema.js';
import { createSettings } from './settings.js';
import { exportVariables } from './environment.js';
import { modelKeyProblem } from './model-keys.js';
import type { ConfigChange, SettingsStore } from './settings-store.js';

export type { ConfigChange } from './settings-store.js';

/**
 * Keys a running gateway reads each time it needs them, so a new value applies at once:
 * the model (the client is rebuilt when its endpoint or key changes), the allow-lists, the
 * display options and the step limit of a turn. Every other key is read once at start (the
 * approval queue keeps its timeout, a thread's lane its busy_input_mode).
 */
const HOT_KEYS: RegExp[] = [/^model\./, /^display\./, /^platforms\.[^.]+\.allowed_users$/, /^agent\.max_iterations$/];

/** Variables of `.env` the gateway reads at each use: allow-lists and model keys. */
const HOT_VARIABLES = /(_ALLOWED_USERS|^GATEWAY_ALLOW_ALL_USERS|_API_KEY)$/;

/** True when a change of `key` (`model.name`) applies without a restart. */
export function isHotKey(key: string): boolean {
  return HOT_KEYS.some((pattern) => pattern.test(key));
}

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The dotted keys whose values differ between two configurations; lists compare whole. */
export function changedKeys(before: unknown, after: unknown, prefix = ''): string[] {
  if (isPlain(before) && isPlain(after)) {
    const names = new Set([...Object.keys(before), ...Object.keys(after)]);
    return [...names].flatMap((name) => changedKeys(before[name], after[name], prefix ? `${prefix}.${name}` : name));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix];
}

/**
 * `live` with the hot keys among `keys` taken from `next`, as a new object (`live` is a frozen
 * snapshot and stays as it was). Returns it with which keys were applied and which need a
 * restart (those keep the running value until then).
 */
export function withHotChanges(live: HermesConfig, next: HermesConfig, keys: string[]): { config: HermesConfig; change: ConfigChange } {
  const config = structuredClone(live);
  const change: ConfigChange = { applied: [], needsRestart: [] };
  for (const key of keys) {
    if (!isHotKey(key)) {
      change.needsRestart.push(key);
      continue;
    }
    const path = key.split('.');
    let target: unknown = config;
    let source: unknown = next;
    for (const part of path.slice(0, -1)) {
      target = isPlain(target) ? target[part] : undefined;
      source = isPlain(source) ? source[part] : undefined;
    }
    const leaf = path[path.length - 1];
    if (!isPlain(target) || !isPlain(source)) {
      change.needsRestart.push(key);
      continue;
    }
    target[leaf] = structuredClone(source[leaf]);
    change.applied.push(key);
  }
  return { config, change };
}

export interface WatchConfigOptions {
  /** The running settings: a reload that changes something swaps in a new snapshot. */
  store: SettingsStore;
  /**
   * Where changed `.env` variables are also set, so children started from then on choose from
   * them (the process's environment for `hermes gateway`; exportVariables' default).
   */
  exportTo?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Told after each reload that changed something. */
  onChange?: (change: ConfigChange) => void;
}

export interface ConfigWatcher {
  /** Reads both files now and applies what changed (the watch calls it; so may a test). */
  reload(): ConfigChange;
  close(): void;
}

/**
 * Watches `config.yaml` and `.env` (their folders, since editors and `hermes config set`
 * replace a file by renaming a new one over it) and applies changes while the gateway runs:
 * a new snapshot with the hot keys and the changed variables, swapped into the store, whose
 * subscribers hear of it.
 * The values compared are the files' own, so settings laid over them at start (command-line
 * overrides) stay until the file changes that key. An invalid file, one that is not a regular
 * file (a FIFO, a socket: refused without blocking), and an empty or whitespace-only one (an
 * editor truncates before it writes) are reported and the running settings kept; the next
 * real change is compared with the last settings applied.
 */
export function watchConfig(options: WatchConfigOptions): ConfigWatcher {
  const { store, logger } = options;
  const { paths } = store.current();
  const live = store.current().config;
  let fileConfig: HermesConfig;
  try {
    fileConfig = readConfigFile(paths.config) ?? structuredClone(live);
  } catch (error) {
    logger.warn({ err: errorMessage(error) }, `${paths.config} cannot be used; changes are compared with the running settings`);
    fileConfig = structuredClone(live);
  }
  let fileEnv = safeReadEnv(paths.env, logger, false) ?? {};

  const reload = (): ConfigChange => {
    const change: ConfigChange = { applied: [], needsRestart: [] };
    const running = store.current();
    let config = running.config;
    const variables: Record<string, string | undefined> = {};
    const fileBefore = fileConfig;
    try {
      const next = readConfigFile(paths.config);
      if (next === undefined) {
        logger.warn(`${paths.config} is empty; the running settings stay until it holds settings again`);
      } else {
        const keys = changedKeys(fileConfig, next);
        fileConfig = next;
        const applied = withHotChanges(config, next, keys);
        if (applied.change.applied.length > 0) config = applied.config;
        change.applied.push(...applied.change.applied);
        change.needsRestart.push(...applied.change.needsRestart);
      }
    } catch (error) {
      logger.warn({ err: errorMessage(error) }, `${paths.config} changed but cannot be used; the running settings stay`);
    }
    const nextEnv = safeReadEnv(paths.env, logger, true);
    if (nextEnv) {
      for (const name of new Set([...Object.keys(fileEnv), ...Object.keys(nextEnv)])) {
        if (fileEnv[name] === nextEnv[name]) continue;
        // A variable the shell set (not this file) wins, as at start.
        if (running.env[name] !== undefined && running.env[name] !== fileEnv[name]) continue;
        variables[name] = nextEnv[name];
        (HOT_VARIABLES.test(name) ? change.applied : change.needsRestart).push(name);
      }
      fileEnv = nextEnv;
    }
    if (change.applied.length > 0 || change.needsRestart.length > 0) {
      const env = { ...running.env, ...variables };
      // A model that names a key that is not set is refused as an invalid file is (compared again at the next change).
      const keyProblem = modelKeyProblem(config.model, env);
      if (keyProblem) {
        fileConfig = fileBefore;
        logger.warn(`${paths.config}: ${keyProblem}; the running settings stay`);
        return { applied: [], needsRestart: [] };
      }
      exportVariables(variables, options.exportTo);
      store.swap(createSettings({ config, paths: running.paths, env, warnings: running.warnings }), change);
      // Names only: values may be keys.
      logger.info(change, 'configuration reloaded');
      options.onChange?.(change);
    }
    return change;
  };

  const watchers: FSWatcher[] = [];
  const names = new Map<string, Set<string>>();
  for (const file of [paths.config, paths.env]) {
    const dir = dirname(file);
    if (!names.has(dir)) names.set(dir, new Set());
    names.get(dir)!.add(basename(file));
  }
  // Several events arrive per save (write, rename): one reload after they settle.
  let pending: NodeJS.Timeout | undefined;
  for (const [dir, wanted] of names) {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name !== null && !wanted.has(name.toString())) return;
        clearTimeout(pending);
        pending = setTimeout(reload, 100);
      });
      watcher.on('error', (error) => logger.warn({ err: errorMessage(error), dir }, 'config watch stopped'));
      watchers.push(watcher);
    } catch (error) {
      logger.warn({ err: errorMessage(error), dir }, 'cannot watch the configuration folder; changes need a restart');
    }
  }
  return {
    reload,
    close() {
      clearTimeout(pending);
      for (const watcher of watchers) watcher.close();
    },
  };
}

/**
 * `.env`'s variables; undefined (and logged) when it cannot be read, or in a reload
 * (`blankKeeps`) when it is empty or blank: a save on its way does not unset the keys.
 */
function safeReadEnv(file: string, logger: Logger, blankKeeps: boolean): Record<string, string> | undefined {
  try {
    const text = readConfigText(file);
    if (blankKeeps && text !== undefined && text.trim() === '') {
      logger.warn(`${file} is empty; its variables stay as they were`);
      return undefined;
    }
    return parseEnv(text ?? '') as Record<string, string>;
  } catch (error) {
    logger.warn({ err: errorMessage(error) }, `${file} cannot be read; its variables stay as they were`);
    return undefined;
  }
}
