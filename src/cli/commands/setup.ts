import type { Command } from 'commander';
import { setConfigValue } from '../../config/index.js';
import { errorMessage } from '../../shared/errors.js';
import { loadForCli } from '../common.js';
import type { ProviderRegistry, SafeProvider } from '../../environments/index.js';

/** Asks on a terminal which backend to use; Enter keeps the current one. */
export async function pickBackend(
  providers: SafeProvider[],
  current: string,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = { input: process.stdin, output: process.stdout },
): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const say = (line: string) => io.output.write(`${line}\n`);
  say('Terminal backends:');
  for (const [index, provider] of providers.entries()) {
    const available = await provider.isAvailable();
    const mark = provider.name === current ? ' (current)' : '';
    say(`  ${index + 1}. ${provider.displayName} [${provider.name}]${mark}${available ? '' : ' — not available here'}`);
    if (provider.description) say(`     ${provider.description}`);
  }
  const rl = createInterface({ input: io.input, output: io.output });
  try {
    for (;;) {
      const answer = (await rl.question(`Backend (number or name, Enter for ${current}): `)).trim();
      if (answer === '') return current;
      const byNumber = /^\d+$/.test(answer) ? providers[Number(answer) - 1] : undefined;
      const chosen = byNumber ?? providers.find((provider) => provider.name === answer.toLowerCase());
      if (chosen) return chosen.name;
      say(`"${answer}" is not one of them; type a number from 1 to ${providers.length} or a name.`);
    }
  } finally {
    rl.close();
  }
}

/** The check `config set terminal.backend` and `setup` pass to setConfigValue. */
export function backendCheck(registry: ProviderRegistry): (config: { terminal: { backend: string } }) => void {
  return (config) => {
    registry.require(config.terminal.backend);
  };
}

export function registerSetupCommand(program: Command): void {
  program
    .command('setup')
    .description('choose the terminal backend (local, sandbox, or a plugin\'s), show its setup notes and write terminal.backend')
    .option('--backend <name>', 'choose this backend without asking')
    .action(async (options: { backend?: string }, command: Command) => {
      const { config, paths } = loadForCli(command);
      const { loadProviderRegistry } = await import('../../environments/index.js');
      const { registry, plugins } = await loadProviderRegistry({ config, paths });
      for (const plugin of plugins) for (const error of plugin.errors) console.error(`warning: plugin ${plugin.name}: ${error}`);
      let name = options.backend;
      if (name === undefined) {
        if (!process.stdin.isTTY) {
          throw new Error(`setup: no terminal to ask on; pass --backend NAME (known: ${registry.names().join(', ')})`);
        }
        name = await pickBackend(registry.list(), config.terminal.backend);
      }
      const provider = registry.require(name);
      console.log(`\n${provider.displayName} [${provider.name}]`);
      const instructions = await provider.setupInstructions();
      if (instructions) console.log(instructions);
      if (!(await provider.isAvailable())) {
        console.log(`warning: ${provider.name} is not available on this host yet; \`hermes doctor\` shows what is missing`);
      }
      try {
        await provider.postSetup();
      } catch (error) {
        throw new Error(`setup: ${provider.name}: post-setup step failed: ${errorMessage(error)}; terminal.backend was not changed`);
      }
      setConfigValue(paths.config, 'terminal.backend', provider.name, backendCheck(registry));
      console.log(`terminal.backend = ${provider.name} (${paths.config})`);
    });
}
