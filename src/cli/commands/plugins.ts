import type { Command } from 'commander';
import { setConfigValue, type HermesConfig } from '../../config/index.js';
import { loadForCli } from '../common.js';

/** Adds or removes `name` in a list key; returns the line describing the change, or undefined. */
function editList(file: string, config: HermesConfig, key: 'plugins.enabled' | 'plugins.disabled', name: string, add: boolean): string | undefined {
  const list = key === 'plugins.enabled' ? config.plugins.enabled : config.plugins.disabled;
  if (add === list.includes(name)) return undefined;
  const next = add ? [...list, name] : list.filter((entry) => entry !== name);
  setConfigValue(file, key, next);
  return `${key}: ${add ? 'added' : 'removed'} ${name} → [${next.join(', ')}]`;
}

export function registerPluginsCommand(program: Command): void {
  const plugins = program.command('plugins').description('list, enable and disable plugins in HERMES_HOME/plugins');

  plugins
    .command('list')
    .description('each plugin with its version, state, backends and any load error')
    .action(async (_options, command: Command) => {
      const { config, paths } = loadForCli(command);
      const { loadProviderRegistry } = await import('../../environments/index.js');
      const { plugins: records } = await loadProviderRegistry({ config, paths });
      if (records.length === 0) {
        console.log(`no plugins in ${paths.plugins} (a plugin is a folder with plugin.yaml and index.js)`);
        return;
      }
      for (const record of records) {
        const state = record.state === 'enabled' ? (record.loaded && record.errors.length === 0 ? 'enabled' : 'enabled, failed') : record.state;
        const backends = record.backends.length > 0 ? `  backends: ${record.backends.join(', ')}` : '';
        console.log(`${record.name}  ${record.version || '-'}  ${state}${backends}${record.description ? `  — ${record.description}` : ''}`);
        for (const error of record.errors) console.log(`    error: ${error}`);
      }
    });

  plugins
    .command('enable')
    .argument('<name>', 'the plugin\'s name (plugin.yaml)')
    .description('load the plugin from now on (adds it to plugins.enabled, removes it from plugins.disabled)')
    .action(async (name: string, _options, command: Command) => {
      const { config, paths } = loadForCli(command);
      const { discoverPlugins } = await import('../../environments/index.js');
      const found = discoverPlugins(paths.plugins).map((manifest) => manifest.name);
      if (!found.includes(name)) {
        throw new Error(`plugins enable: no plugin "${name}" in ${paths.plugins}; found: ${found.length > 0 ? found.join(', ') : 'none'}`);
      }
      const file = paths.config;
      const changes = [editList(file, config, 'plugins.disabled', name, false), editList(file, loadForCli(command).config, 'plugins.enabled', name, true)]
        .filter((line): line is string => line !== undefined);
      console.log(changes.length > 0 ? `${changes.join('\n')}\n(${file})` : `${name} is already enabled; nothing changed`);
    });

  plugins
    .command('disable')
    .argument('<name>', 'the plugin\'s name')
    .description('never load the plugin (adds it to plugins.disabled, removes it from plugins.enabled)')
    .action((name: string, _options, command: Command) => {
      const { config, paths } = loadForCli(command);
      const file = paths.config;
      const changes = [editList(file, config, 'plugins.enabled', name, false), editList(file, loadForCli(command).config, 'plugins.disabled', name, true)]
        .filter((line): line is string => line !== undefined);
      console.log(changes.length > 0 ? `${changes.join('\n')}\n(${file})` : `${name} is already disabled; nothing changed`);
    });
}
