import type { HermesConfig } from '../config/schema.js';
import type { HermesPaths } from '../config/paths.js';
import type { Logger } from '../shared/logger.js';
import { builtinProviders } from './builtins.js';
import { loadPlugins, type PluginRecord } from './plugins/loader.js';
import { ProviderRegistry } from './registry.js';
import { EnvironmentManager } from './manager.js';

/** The registry the gateway and the CLI use: built-in backends, then the enabled plugins'. */
export async function loadProviderRegistry(options: {
  config: HermesConfig;
  paths: HermesPaths;
  logger?: Logger;
}): Promise<{ registry: ProviderRegistry; plugins: PluginRecord[] }> {
  const registry = new ProviderRegistry({ logger: options.logger });
  for (const provider of builtinProviders(options)) registry.register(provider, 'builtin');
  const plugins = await loadPlugins({ ...options, registry });
  return { registry, plugins };
}

/**
 * The real `environmentFor` for the agent: loads the registry (plugins included) and
 * returns a manager for the configured backend. Fails when `terminal.backend` is unknown.
 */
export async function createEnvironmentManager(options: {
  config: HermesConfig;
  paths: HermesPaths;
  logger?: Logger;
}): Promise<{ manager: EnvironmentManager; registry: ProviderRegistry; plugins: PluginRecord[] }> {
  const { registry, plugins } = await loadProviderRegistry(options);
  registry.require(options.config.terminal.backend);
  return { manager: new EnvironmentManager({ ...options, registry }), registry, plugins };
}
