import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { parseEnv } from 'node:util';
import { parseYamlText, validateConfig } from './load.js';
import { readConfigText } from './safe-read.js';
import type { HermesPaths } from './paths.js';
import type { HermesConfig } from './schema.js';

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

/** What a reload did: keys (and `.env` variables) applied now, and those that need a restart. */
export interface ConfigChange {
  applied: string[];
  needsRestart: string[];
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
 * Writes the hot keys among `keys` from `next` into `live`, in place: the gateway, the agent
 * and the adapters hold the same object, so each sees the new value at its next read.
 * Returns which keys were applied and which need a restart.
 */
export function applyConfigChanges(live: Partial<HermesConfig>, next: HermesConfig, keys: string[]): ConfigChange {
  const change: ConfigChange = { applied: [], needsRestart: [] };
  for (const key of keys) {
    if (!isHotKey(key)) {
      change.needsRestart.push(key);
      continue;
    }
    const path = key.split('.');
    let target: unknown = live;
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
  return change;
}

export interface WatchConfigOptions {
  /** The running configuration, changed in place. */
  live: HermesConfig;
  paths: Pick<HermesPaths, 'config' | 'env'>;
  /** Where `.env` variables go (process.env for `hermes gateway`). */
  env?: NodeJS.ProcessEnv;
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
 * replace a file by renaming a new one over it) and applies changes while the gateway runs.
 * The values compared are the files' own, so settings laid over them at start (command-line
 * overrides) stay until the file changes that key. An invalid file, one that is not a regular
 * file (a FIFO, a socket: refused without blocking), and an empty or whitespace-only one (an
 * editor truncates before it writes) are reported and the running settings kept; the next
 * real change is compared with the last settings applied.
 */
export function watchConfig(options: WatchConfigOptions): ConfigWatcher {
  const { live, paths, logger } = options;
  const env = options.env ?? process.env;
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
    try {
      const next = readConfigFile(paths.config);
      if (next === undefined) {
        logger.warn(`${paths.config} is empty; the running settings stay until it holds settings again`);
      } else {
        const keys = changedKeys(fileConfig, next);
        fileConfig = next;
        const applied = applyConfigChanges(live, next, keys);
        change.applied.push(...applied.applied);
        change.needsRestart.push(...applied.needsRestart);
      }
    } catch (error) {
      logger.warn({ err: errorMessage(error) }, `${paths.config} changed but cannot be used; the running settings stay`);
    }
    const nextEnv = safeReadEnv(paths.env, logger, true);
    if (nextEnv) {
      for (const name of new Set([...Object.keys(fileEnv), ...Object.keys(nextEnv)])) {
        if (fileEnv[name] === nextEnv[name]) continue;
        // A variable the shell set (not this file) wins, as at start.
        if (env[name] !== undefined && env[name] !== fileEnv[name]) continue;
        if (nextEnv[name] === undefined) delete env[name];
        else env[name] = nextEnv[name];
        (HOT_VARIABLES.test(name) ? change.applied : change.needsRestart).push(name);
      }
      fileEnv = nextEnv;
    }
    if (change.applied.length > 0 || change.needsRestart.length > 0) {
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
 * The file's settings; undefined when it is empty or blank (a save on its way), which a
 * running gateway does not take for "all defaults". A missing file is the defaults.
 */
function readConfigFile(file: string): HermesConfig | undefined {
  const text = readConfigText(file);
  if (text !== undefined && text.trim() === '') return undefined;
  return validateConfig(text === undefined ? {} : parseYamlText(text, file), file).config;
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
