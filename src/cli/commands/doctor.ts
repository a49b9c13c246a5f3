import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import type { PlatformReadiness } from '../../gateway/platform.js';
import { givePlatformSchemas } from '../../../adapters/config.js';
import { allowsAllUsers, defaultConfig, loadSettings, pathsFor, readEnvironment, type HermesConfig, type SettingsEnv } from '../../config/index.js';
import { errorMessage } from '../../shared/errors.js';
import { homeOption } from '../common.js';
import { chooseBackends, type BackendChoice } from '../../environments/audience.js';
import type { ProviderRegistry } from '../../environments/registry.js';

/** One line of the report. `fail` counts against the exit code; `warn` and `info` do not. */
interface Line {
  status: 'ok' | 'fail' | 'warn' | 'info';
  name: string;
  detail?: string;
  fix?: string;
}

/** One platform's readiness, named; `tokens` when it is a chat platform others write on. */
export type PlatformState = PlatformReadiness & { name: string; tokens: boolean };

/** Whether each platform of the registry has what it needs to start, from the environment (and HERMES_HOME/.env). */
export async function platformTokens(config: HermesConfig, env: SettingsEnv): Promise<PlatformState[]> {
  const { PLATFORMS } = await import('../../../adapters/index.js');
  return PLATFORMS.map((platform) => ({ name: platform.name, tokens: platform.setup !== undefined, ...platform.readiness(config, env) }));
}

/** The Python that execute_code starts, and whether it is 3.8 or newer. */
function pythonLine(python: string): Line {
  const run = spawnSync(python, ['-c', 'import sys; print(sys.version.split()[0]); sys.exit(0 if sys.version_info >= (3, 8) else 3)'], {
    encoding: 'utf8', timeout: 10_000,
  });
  if (run.error || (run.status !== 0 && run.status !== 3)) {
    return { status: 'fail', name: 'python for execute_code', detail: `${python} did not run`, fix: 'install Python 3.8 or newer, or point code_execution.python at one' };
  }
  const version = run.stdout.trim();
  return run.status === 0
    ? { status: 'ok', name: 'python for execute_code', detail: `${python} ${version}` }
    : { status: 'fail', name: 'python for execute_code', detail: `${python} is ${version}`, fix: 'execute_code needs Python 3.8 or newer: set code_execution.python' };
}

/** Each MCP server of mcp_servers, started once as the gateway would (first try only), then stopped. */
async function mcpLines(config: HermesConfig): Promise<Line[]> {
  const { McpServers } = await import('../../mcp/index.js');
  const { silentLogger } = await import('../../shared/logger.js');
  const servers = new McpServers({ logger: silentLogger() });
  try {
    await servers.load(config.mcp_servers);
    const statuses = new Map(servers.status().map((status) => [status.name, status]));
    return Object.entries(config.mcp_servers).map(([name, settings]): Line => {
      const status = statuses.get(name);
      const how = settings.url !== '' ? settings.url : [settings.command, ...settings.args].join(' ');
      if (!status) return { status: 'info', name: `MCP ${name}`, detail: 'disabled (enabled: false)' };
      if (status.state === 'ready') return { status: 'ok', name: `MCP ${name}`, detail: `ready (${status.transport}, ${status.tools} tools${status.scripts ? ', scripts' : ''})` };
      return {
        status: 'fail', name: `MCP ${name}`, detail: `did not start: ${status.error ?? status.state}`,
        fix: `check ${settings.url !== '' ? 'that the server listens at' : 'by running'} ${how}; or set mcp_servers.${name}.enabled: false`,
      };
    });
  } finally {
    await servers.close();
  }
}

/** Everything doctor checks, in order. */
async function diagnose(home: string | undefined): Promise<Line[]> {
  const lines: Line[] = [];
  const paths = pathsFor(home);
  let config: HermesConfig;
  // The environment with HERMES_HOME/.env under it; without a valid config, the environment alone.
  let env: SettingsEnv;
  try {
    givePlatformSchemas();
    const loaded = loadSettings({ home });
    config = loaded.config;
    env = loaded.env;
    lines.push({ status: 'ok', name: 'config', detail: `${paths.config} is valid` });
    for (const warning of loaded.warnings) lines.push({ status: 'warn', name: 'config', detail: warning, fix: 'remove or rename the key' });
  } catch (error) {
    config = defaultConfig();
    env = readEnvironment();
    lines.push({ status: 'fail', name: 'config', detail: errorMessage(error), fix: `fix ${paths.config} (hermes config set KEY VALUE validates as it writes); the checks below use the defaults` });
  }
  lines.push(pythonLine(config.code_execution.python));
  lines.push(...(await mcpLines(config)));

  const { loadProviderRegistry } = await import('../../environments/index.js');
  const { registry, plugins } = await loadProviderRegistry({ config, paths });
  for (const plugin of plugins) {
    if (plugin.state !== 'enabled') continue;
    lines.push(plugin.errors.length === 0
      ? { status: 'ok', name: `plugin ${plugin.name}`, detail: `loaded${plugin.backends.length > 0 ? `, backends: ${plugin.backends.join(', ')}` : ''}` }
      : { status: 'warn', name: `plugin ${plugin.name}`, detail: plugin.errors.join('; '), fix: `fix the plugin in ${plugin.dir}, or hermes plugins disable ${plugin.name}` });
  }

  const active = registry.get(config.terminal.backend);
  if (!active) {
    lines.push({
      status: 'fail', name: 'terminal backend', detail: `terminal.backend is "${config.terminal.backend}", which no built-in or enabled plugin provides`,
      fix: `choose one of ${registry.names().join(', ')} (hermes setup), or enable the plugin that provides it`,
    });
  } else {
    const available = await active.isAvailable();
    lines.push(available
      ? { status: 'ok', name: 'terminal backend', detail: `${active.displayName} [${active.name}] is available` }
      : { status: 'fail', name: 'terminal backend', detail: `${active.name} is not available on this host`, fix: 'see its checks below, or choose another backend with hermes setup' });
  }
  lines.push(platformBackendCheck(config, registry, await platformTokens(config, env)));
  for (const provider of registry.list()) {
    const isActive = provider.name === active?.name;
    for (const check of await provider.doctorChecks()) {
      const required = isActive && check.required !== false;
      lines.push({
        status: check.ok ? 'ok' : required ? 'fail' : isActive ? 'warn' : 'info',
        name: check.name.startsWith(`${provider.name}:`) ? check.name : `${provider.name}: ${check.name}`,
        detail: check.detail,
        fix: check.ok ? undefined : check.fix,
      });
    }
  }

  lines.push(...(await modelLines(config, env, paths.env)));
  lines.push(...(await platformLines(config, env, paths.env)));
  return lines;
}

/** The model: a real call with a tool (an empty name, an unreachable URL or a refused key fails). */
async function modelLines(config: HermesConfig, env: SettingsEnv, envFile: string): Promise<Line[]> {
  const { checkModel } = await import('../model-check.js');
  const { modelKeyProblem } = await import('../../config/index.js');
  // The primary alone first; each fallback is its own line below.
  const result = await checkModel({ ...config.model, fallbacks: [] }, env);
  const lines: Line[] = [{
    status: !result.ok ? 'fail' : result.toolCalled ? 'ok' : 'warn',
    name: 'model',
    detail: config.model.provider === 'anthropic' ? `anthropic: ${result.detail}` : result.detail,
    fix: result.fix,
  }];
  const keyProblem = modelKeyProblem(config.model, env);
  if (keyProblem) lines.push({ status: 'fail', name: 'model keys', detail: keyProblem, fix: `the gateway does not start until it is set (${envFile})` });
  for (const [index, fallback] of config.model.fallbacks.entries()) {
    const entry = { ...config.model, provider: fallback.provider, base_url: fallback.base_url, name: fallback.model, api_key_env: fallback.api_key_env, api_key_pool: [], fallbacks: [] };
    const checked = await checkModel(entry, env);
    lines.push({ status: !checked.ok ? 'warn' : checked.toolCalled ? 'ok' : 'warn', name: `model fallback ${index + 1}`, detail: `${fallback.provider}: ${checked.detail}`, fix: checked.fix });
  }
  if (!env[config.model.api_key_env]) {
    lines.push(result.ok
      ? { status: 'info', name: 'model key', detail: `${config.model.api_key_env} is not set, and the server did not ask for a key` }
      : { status: 'warn', name: 'model key', detail: `${config.model.api_key_env} is not set`, fix: `put ${config.model.api_key_env}=… in ${envFile} (not needed for servers without keys)` });
  }
  return lines;
}

/**
 * Each chat platform: disabled, waiting for its tokens, or ready; a ready one with an empty
 * allow-list fails (nobody could talk to the bot there).
 */
async function platformLines(config: HermesConfig, env: SettingsEnv, envFile: string): Promise<Line[]> {
  const { AccessPolicy, envName } = await import('../../gateway/index.js');
  const access = new AccessPolicy(config, env);
  const allowAll = allowsAllUsers(env);
  const lines: Line[] = [];
  for (const platform of await platformTokens(config, env)) {
    const name = `platform ${platform.name}`;
    if (!platform.enabled) lines.push({ status: 'info', name, detail: 'disabled in config' });
    else if (!platform.ready && platform.fix) lines.push({ status: 'fail', name, detail: platform.detail, fix: platform.fix });
    else if (!platform.ready) lines.push({ status: 'info', name, detail: `not started: ${platform.detail} in ${envFile}` });
    else if (!platform.tokens) lines.push({ status: 'ok', name, detail: `ready (${platform.detail})` });
    else lines.push(...(await chatPlatformLines(platform.name, config, env, { allowAll, allowed: access.allowedUsers(platform.name).size, envFile, envVar: envName(platform.name) })));
  }
  const { platformsWithoutAdmins } = await import('../../config/index.js');
  for (const platform of platformsWithoutAdmins(config)) {
    lines.push({
      status: 'info', name: `platform ${platform}`,
      detail: `no admins listed: the allow-listed users may use /model <name>, /reload-mcp and /pair, and nobody may answer another's approval request`,
      fix: `list the admins' ids in platforms.${platform}.admins`,
    });
  }
  return lines;
}

/** A chat platform that has its tokens: the platform checks them (and says what limits the bot), and someone must be allowed. */
async function chatPlatformLines(
  platform: string,
  config: HermesConfig,
  env: SettingsEnv,
  access: { allowAll: boolean; allowed: number; envFile: string; envVar: string },
): Promise<Line[]> {
  const { line, warnings } = await chatPlatformLine(platform, config, env, access);
  return [line, ...warnings.map((detail): Line => ({ status: 'warn', name: `platform ${platform}`, detail }))];
}

async function chatPlatformLine(
  platform: string,
  config: HermesConfig,
  env: SettingsEnv,
  access: { allowAll: boolean; allowed: number; envFile: string; envVar: string },
): Promise<{ line: Line; warnings: string[] }> {
  const name = `platform ${platform}`;
  const { chatPlatforms } = await import('../setup/platform-step.js');
  const setup = (await chatPlatforms()).find((known) => known.name === platform)?.setup;
  if (!setup) return { line: { status: 'info', name, detail: 'no setup known for this platform' }, warnings: [] };
  const tokens = Object.fromEntries(setup.tokenNames(config).map((variable) => [variable, env[variable] ?? '']));
  // Without looking for a person: a platform may have to disturb a running gateway for it (a long poll).
  const check = await setup.checkTokens(tokens, config, false);
  if (!check.ok) return { line: { status: 'fail', name, detail: check.detail, fix: `hermes setup (or fix the token in ${access.envFile})` }, warnings: [] };
  const warnings = check.warnings ?? [];
  if (!access.allowAll && access.allowed === 0) {
    return {
      line: {
        status: 'fail', name, detail: `${check.detail}, but the allow-list is empty: the bot refuses everyone there`,
        fix: `hermes setup finds your own ${platform} id; or put ${access.envVar}=<id>,<id> in ${access.envFile}, or list the ids in platforms.${platform}.allowed_users`,
      },
      warnings,
    };
  }
  const allowed = access.allowAll ? 'every user allowed (GATEWAY_ALLOW_ALL_USERS)' : `${access.allowed} user(s) allowed`;
  return { line: { status: 'ok', name, detail: `ready: ${check.detail}, ${allowed}` }, warnings };
}

/** True when a platform other people can write on (not the web chat) is enabled and has its tokens. */
function othersCanReach(platforms: readonly PlatformState[]): boolean {
  return platforms.some((platform) => platform.tokens && platform.enabled && platform.ready);
}

/** Which backend other people's sessions use, and a loud warning when it is not isolated and they can reach the bot. */
function platformBackendCheck(config: HermesConfig, registry: ProviderRegistry, platforms: readonly PlatformState[]): Line {
  let choice: BackendChoice;
  try {
    choice = chooseBackends(config, registry);
  } catch (error) {
    return { status: 'fail', name: 'platform backend', detail: errorMessage(error), fix: 'set terminal.platform_backend to auto or a known backend' };
  }
  const detail = `sessions from the chat platforms run on ${choice.others.name}`;
  if (!choice.warning) return { status: 'ok', name: 'platform backend', detail };
  return {
    status: othersCanReach(platforms) ? 'warn' : 'info', name: 'platform backend', detail: choice.warning,
    fix: 'apt-get install bubblewrap, or hermes config set terminal.platform_backend sandbox (or ssh, docker)',
  };
}

/** The lines `hermes status` prints about other people's sessions. */
export function platformBackendLines(config: HermesConfig, registry: ProviderRegistry, platforms: readonly PlatformState[]): string[] {
  const line = platformBackendCheck(config, registry, platforms);
  if (line.status === 'fail') return [`platform backend: ${line.detail}`];
  const choice = chooseBackends(config, registry);
  const head = `chat platform sessions: ${choice.others.name}`;
  return line.status === 'warn' ? [head, `  WARNING: ${choice.warning}`] : [head];
}

const LABEL: Record<Line['status'], string> = { ok: '[ ok ]', fail: '[FAIL]', warn: '[warn]', info: '[info]' };

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('check the config, the model (one real call with a tool), Python, every terminal backend and the platforms (tokens, allow-lists); exit code 1 when something required fails')
    .action(async (_options, command: Command) => {
      const lines = await diagnose(homeOption(command));
      for (const line of lines) {
        console.log(`${LABEL[line.status]} ${line.name}${line.detail ? `: ${line.detail}` : ''}`);
        if (line.fix) console.log(`       → ${line.fix}`);
      }
      const failed = lines.filter((line) => line.status === 'fail').length;
      console.log(failed === 0 ? '\nall required checks passed' : `\n${failed} required check(s) failed`);
      if (failed > 0) process.exitCode = 1;
    });
}
