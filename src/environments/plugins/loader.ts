import { pathToFileURL } from 'node:url';
import type { HermesConfig } from '../../config/schema.js';
import type { HermesPaths } from '../../config/paths.js';
import { errorMessage } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { buildChildEnv } from '../child-env.js';
import { LocalEnvironment } from '../local.js';
import type { TerminalEnvironmentProvider } from '../provider.js';
import type { ProviderRegistry } from '../registry.js';
import { discoverPlugins, type PluginManifest } from './manifest.js';

/** `enabled`: listed in plugins.enabled and not disabled; `disabled`: in plugins.disabled; `available`: in neither. */
export type PluginState = 'enabled' | 'disabled' | 'available';

/** A plugin as `hermes plugins list` shows it. */
export interface PluginRecord {
  name: string;
  version: string;
  description: string;
  kind: string;
  dir: string;
  state: PluginState;
  /** register(ctx) ran to the end. */
  loaded: boolean;
  /** Backends it registered. */
  backends: string[];
  /** Why it did not load, and registrations that were refused. */
  errors: string[];
}

/** What a plugin's `register(ctx)` receives. */
export interface PluginContext {
  /** The plugin's name from plugin.yaml. */
  readonly pluginName: string;
  readonly logger: Logger;
  /**
   * Adds a terminal backend. A refused one (reserved or taken name, no createEnvironment)
   * is recorded and logged, and false is returned; other registrations still count.
   */
  registerTerminalEnvironmentProvider(provider: TerminalEnvironmentProvider): boolean;
  /** Helpers for backends that run processes on this host. */
  readonly LocalEnvironment: typeof LocalEnvironment;
  readonly buildChildEnv: typeof buildChildEnv;
}

/** The state plugins.enabled / plugins.disabled give a plugin name (disabled wins). */
export function pluginState(config: HermesConfig, name: string): PluginState {
  if (config.plugins.disabled.includes(name)) return 'disabled';
  if (config.plugins.enabled.includes(name)) return 'enabled';
  return 'available';
}

/**
 * Finds the plugins in HERMES_HOME/plugins and loads the enabled ones into `registry`.
 * Never throws: a plugin that fails (bad manifest, import error, no register, register
 * throws) is skipped with its error recorded and logged, and the gateway starts without it.
 */
export async function loadPlugins(options: {
  config: HermesConfig;
  paths: HermesPaths;
  registry: ProviderRegistry;
  logger?: Logger;
}): Promise<PluginRecord[]> {
  const logger = options.logger ?? silentLogger();
  const records: PluginRecord[] = [];
  for (const manifest of discoverPlugins(options.paths.plugins)) {
    const record: PluginRecord = {
      name: manifest.name, version: manifest.version, description: manifest.description, kind: manifest.kind,
      dir: manifest.dir, state: pluginState(options.config, manifest.name), loaded: false, backends: [], errors: [],
    };
    records.push(record);
    if (record.state !== 'enabled') continue;
    await loadOne(manifest, record, options.registry, logger.child({ plugin: manifest.name }));
  }
  return records;
}

async function loadOne(manifest: PluginManifest, record: PluginRecord, registry: ProviderRegistry, logger: Logger): Promise<void> {
  const fail = (message: string) => {
    record.errors.push(message);
    logger.warn(`plugin ${manifest.name} skipped: ${message}`);
  };
  if (manifest.problem || !manifest.entry) {
    fail(manifest.problem ?? `${manifest.dir}: no index.js or index.mjs`);
    return;
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(manifest.entry).href)) as Record<string, unknown>;
  } catch (error) {
    fail(`${manifest.entry}: import failed: ${errorMessage(error)}`);
    return;
  }
  const register = mod.register ?? (mod.default as Record<string, unknown> | undefined)?.register;
  if (typeof register !== 'function') {
    fail(`${manifest.entry}: exports no register(ctx) function`);
    return;
  }
  const ctx: PluginContext = {
    pluginName: manifest.name,
    logger,
    registerTerminalEnvironmentProvider(provider) {
      try {
        record.backends.push(registry.register(provider, manifest.name).name);
        return true;
      } catch (error) {
        record.errors.push(errorMessage(error));
        logger.warn(errorMessage(error));
        return false;
      }
    },
    LocalEnvironment,
    buildChildEnv,
  };
  try {
    await (register as (ctx: PluginContext) => unknown)(ctx);
    record.loaded = true;
  } catch (error) {
    fail(`register(ctx) threw: ${errorMessage(error)}`);
  }
}
