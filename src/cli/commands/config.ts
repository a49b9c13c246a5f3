import type { Command } from 'commander';
import { pathsFor, getConfigValue, setConfigValue, parseCliValue, type HermesConfig } from '../../config/index.js';
import { homeOption, loadForCli } from '../common.js';

export function registerConfigCommand(program: Command): void {
  const config = program.command('config').description('show or change config.yaml');

  config
    .command('path')
    .description('print the path of config.yaml')
    .action((_options, command: Command) => {
      console.log(pathsFor(homeOption(command)).config);
    });

  config
    .command('get')
    .argument('[key]', 'a dotted key such as code_execution.timeout; all of it when left out')
    .description('print a value (YAML for sections and lists)')
    .action(async (key: string | undefined, _options, command: Command) => {
      const { stringify } = await import('yaml');
      const { config: values } = loadForCli(command);
      const value = key ? getConfigValue(values, key) : values;
      if (value === undefined) throw new Error(`unknown key "${key}" (see config/default.yaml for the keys)`);
      console.log(typeof value === 'object' && value !== null ? stringify(value).trimEnd() : String(value));
    });

  config
    .command('set')
    .argument('<key>', 'a dotted key such as code_execution.timeout')
    .argument('<value>', 'the new value, read as YAML (300, true, "[a, b]")')
    .description('validate and write a value, keeping the file\'s comments and order')
    .action(async (key: string, raw: string, _options, command: Command) => {
      const file = pathsFor(homeOption(command)).config;
      const value = parseCliValue(raw);
      setConfigValue(file, key, value, key === 'terminal.backend' ? await backendCheckFor(command) : undefined);
      console.log(`${key} = ${JSON.stringify(value)} (${file})`);
    });
}

/** terminal.backend must name a registered backend: built-in, or from an enabled plugin. */
async function backendCheckFor(command: Command): Promise<(config: HermesConfig) => void> {
  const { config, paths } = loadForCli(command);
  const { loadProviderRegistry } = await import('../../environments/index.js');
  const { registry } = await loadProviderRegistry({ config, paths });
  return (next) => {
    registry.require(next.terminal.backend);
  };
}
