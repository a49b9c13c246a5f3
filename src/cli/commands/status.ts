import type { Command } from 'commander';
import { loadForCli } from '../common.js';
import { platformBackendLines, platformTokens } from './doctor.js';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('the active terminal backend, every backend\'s probe, the model settings and which platforms have tokens')
    .action(async (_options, command: Command) => {
      const { config, paths, env } = loadForCli(command);
      const { loadProviderRegistry } = await import('../../environments/index.js');
      const { registry, plugins } = await loadProviderRegistry({ config, paths });
      console.log(`config: ${paths.config}`);
      const active = registry.get(config.terminal.backend);
      console.log(`terminal backend: ${active ? `${active.displayName} [${active.name}]` : `${config.terminal.backend} (unknown: known are ${registry.names().join(', ')})`}`);
      const platforms = await platformTokens(config, env);
      for (const line of platformBackendLines(config, registry, platforms)) console.log(line);
      console.log('backends:');
      // A backend nobody chose (terminal.backend, terminal.platform_backend) that cannot run here is no failure: it is not set up.
      const chosen = new Set([config.terminal.backend, config.terminal.platform_backend]);
      for (const provider of registry.list()) {
        const probe = await provider.probe();
        const mark = provider.name === active?.name ? '*' : ' ';
        const source = provider.builtin ? '' : ` (plugin ${provider.source})`;
        const state = probe.ok ? 'ok  ' : chosen.has(provider.name) ? 'FAIL' : '--  ';
        const detail = probe.ok || chosen.has(provider.name) ? probe.detail : `not chosen, not set up here (${probe.detail})`;
        console.log(`  ${mark} ${provider.name.padEnd(14)} ${state} ${detail}${source}`);
      }
      for (const plugin of plugins) for (const error of plugin.errors) console.log(`  plugin ${plugin.name}: ${error}`);
      const key = env[config.model.api_key_env];
      console.log(`model: ${config.model.name || '(none: set model.name)'} at ${config.model.base_url}; ${config.model.api_key_env} ${key ? 'is set' : 'is not set'}`);
      console.log('platforms:');
      for (const platform of platforms) {
        console.log(`  ${platform.name.padEnd(9)} ${platform.enabled ? (platform.ready ? 'ready' : 'no token') : 'disabled'} — ${platform.detail}`);
      }
    });
}
