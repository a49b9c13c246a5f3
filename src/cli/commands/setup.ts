import { Option, type Command } from 'commander';
import { PLATFORM_SETUP_FLAGS } from '../../../adapters/setup-flags.js';
import type { PlatformSetupFlags } from '../../gateway/platform.js';
import { setConfigValue, setDotEnvValue, type HermesConfig, type HermesPaths } from '../../config/index.js';
import { errorMessage } from '../../shared/errors.js';
import { loadForCli } from '../common.js';
import type { ProviderRegistry, SafeProvider } from '../../environments/index.js';
import type { Asker, SetupIo } from '../setup/ask.js';
import type { ModelChoice } from '../setup/model-step.js';
import { platformSection, type PlatformChoice } from '../setup/platform-step.js';

/** Asks on a terminal which backend to use; Enter keeps the current one. */
export async function pickBackend(
  providers: SafeProvider[],
  current: string,
  io: SetupIo = { input: process.stdin, output: process.stdout },
): Promise<string> {
  const { Asker } = await import('../setup/ask.js');
  const ask = await Asker.open(io);
  try {
    return await chooseBackend(ask, providers, current);
  } finally {
    ask.close();
  }
}

async function chooseBackend(ask: Asker, providers: SafeProvider[], current: string): Promise<string> {
  ask.say('Terminal backends:');
  for (const [index, provider] of providers.entries()) {
    const available = await provider.isAvailable();
    const mark = provider.name === current ? ' (current)' : '';
    ask.say(`  ${index + 1}. ${provider.displayName} [${provider.name}]${mark}${available ? '' : ' — not available here'}`);
    if (provider.description) ask.say(`     ${provider.description}`);
  }
  return ask.choose(`Backend (number or name, Enter for ${current})`, providers.map((provider) => provider.name), current);
}

/** The check `config set terminal.backend` and `setup` pass to setConfigValue. */
export function backendCheck(registry: ProviderRegistry): (config: { terminal: { backend: string } }) => void {
  return (config) => {
    registry.require(config.terminal.backend);
  };
}

interface SetupOptions {
  nonInteractive?: boolean;
  provider?: string;
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  check: boolean;
  backend?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** What a platform's flags gave: tokens by variable, and the ids to allow. */
interface PlatformFlagValues {
  tokens: Record<string, string>;
  users: string[];
}

/** The values of one platform's flags as commander parsed them. */
function flagValues(command: Command, flags: PlatformSetupFlags): PlatformFlagValues {
  const tokens: Record<string, string> = {};
  for (const token of flags.tokens) {
    const value: unknown = command.getOptionValue(new Option(token.flag).attributeName());
    if (typeof value === 'string') tokens[token.env] = value;
  }
  const users: unknown = command.getOptionValue(new Option(flags.user.flag).attributeName());
  return { tokens, users: Array.isArray(users) ? users.filter((id): id is string => typeof id === 'string') : [] };
}

export function registerSetupCommand(program: Command): void {
  const setup = program
    .command('setup')
    .description('configure the model and key (tested with a call), the terminal backend and each chat platform (tokens checked with the platform, allow-list); asks on a terminal, or takes flags')
    .option('--non-interactive', 'ask nothing: do the steps whose flags are given, fail on a failed check')
    .option('--provider <name>', 'model provider: openai, openrouter, ollama or custom (sets the key variable and a default URL)')
    .option('--base-url <url>', 'model.base_url, the API root (…/v1)')
    .option('--model <id>', 'model.name')
    .option('--api-key <key>', 'the model key, saved to HERMES_HOME/.env (or put it in the environment)')
    .option('--api-key-env <name>', 'model.api_key_env, the variable the key is kept in')
    .option('--no-check', 'write the model settings without the test call')
    .option('--backend <name>', 'terminal.backend');
  // Each platform's flags, as its module declares them.
  for (const flags of PLATFORM_SETUP_FLAGS) {
    for (const token of flags.tokens) setup.option(token.flag, token.description);
    setup.option(flags.user.flag, flags.user.description, collect, []);
  }
  setup.action(async (options: SetupOptions, command: Command) => {
    const loaded = loadForCli(command);
    const { config, paths } = loaded;
    // The variables as the steps see them, with what setup saves to .env on the way.
    const env: NodeJS.ProcessEnv = { ...loaded.env };
    const given = new Map(PLATFORM_SETUP_FLAGS.map((flags) => [flags.platform, flagValues(command, flags)]));
    const flagged = Boolean(options.provider || options.baseUrl || options.model || options.apiKey || options.apiKeyEnv || options.backend)
      || [...given.values()].some((values) => Object.keys(values.tokens).length > 0 || values.users.length > 0);
    if (options.nonInteractive || flagged) return runFromFlags(options, given, config, paths, flagged, env);
    if (!process.stdin.isTTY) {
      const { loadProviderRegistry } = await import('../../environments/index.js');
      const { registry } = await loadProviderRegistry({ config, paths });
      throw new Error(`setup: no terminal to ask on; pass --non-interactive with the flags of the steps to do (hermes setup --help), such as --backend NAME (known: ${registry.names().join(', ')})`);
    }
    await runInteractive(config, paths, { input: process.stdin, output: process.stdout }, env);
  });
}

/** The whole walk on a terminal: model, backend, then each platform. */
export async function runInteractive(loaded: HermesConfig, paths: HermesPaths, io: SetupIo, env: NodeJS.ProcessEnv): Promise<void> {
  // The settings as the walk writes them (a loaded snapshot is frozen).
  const config = structuredClone(loaded);
  const [{ Asker }, { askModel }, { askPlatform, chatPlatforms }] = await Promise.all([
    import('../setup/ask.js'), import('../setup/model-step.js'), import('../setup/platform-step.js'),
  ]);
  const ask = await Asker.open(io);
  const say = (line: string) => ask.say(line);
  try {
    ask.say(`hermes setup: writes ${paths.config} and keys to ${paths.env}`);
    const model = await askModel(ask, config, env);
    if (model) writeModel(paths, model, say, env);
    ask.say('\n== Terminal backend ==');
    const { registry } = await loadRegistry(config, paths);
    await setBackend(registry, paths, await chooseBackend(ask, registry.list(), config.terminal.backend), say);
    for (const platform of await chatPlatforms()) {
      const choice = await askPlatform(ask, platform, config, env);
      if (choice) writePlatform(paths, config, choice, say, env);
    }
    ask.say('\nDone. `hermes doctor` checks everything; `npm start` (or `hermes gateway`) runs the gateway.');
  } finally {
    ask.close();
  }
}

/** `--non-interactive` and flags: each flagged step, checked; a failed check writes nothing of its step and fails. */
async function runFromFlags(options: SetupOptions, given: ReadonlyMap<string, PlatformFlagValues>, loaded: HermesConfig, paths: HermesPaths, flagged: boolean, env: NodeJS.ProcessEnv): Promise<void> {
  // The settings as the steps write them (a loaded snapshot is frozen).
  const config = structuredClone(loaded);
  const say = (line: string) => console.log(line);
  if (!flagged) {
    const example = PLATFORM_SETUP_FLAGS[0]?.tokens[0]?.flag.split(' ')[0];
    say(`setup: nothing to do: --non-interactive does the steps whose flags are given (--model, --backend${example ? `, ${example}` : ''}…; hermes setup --help)`);
    return;
  }
  if (options.provider || options.baseUrl || options.model || options.apiKey || options.apiKeyEnv) {
    writeModel(paths, await modelFromFlags(options, config, env), say, env);
  }
  if (options.backend) {
    const { registry } = await loadRegistry(config, paths);
    await setBackend(registry, paths, options.backend, say);
  }
  const { chatPlatforms, idsFromFlag } = await import('../setup/platform-step.js');
  for (const known of await chatPlatforms()) {
    const platform = known.name;
    const { tokens: flags, users } = given.get(platform) ?? { tokens: {}, users: [] };
    const typed = Object.entries(flags);
    if (typed.length === 0 && users.length === 0) continue;
    const tokens: Record<string, string> = {};
    for (const name of known.setup.tokenNames(config)) {
      const value = flags[name] ?? env[name];
      const flag = known.setup.flags.tokens.find((token) => token.env === name)?.flag.split(' ')[0] ?? 'no flag';
      if (!value) throw new Error(`setup: ${platform}: ${name} is not given (${flag}) and not set in ${paths.env}`);
      tokens[name] = value;
    }
    const check = await known.setup.checkTokens(tokens, config, true);
    if (!check.ok) throw new Error(`setup: ${platform}: ${check.detail}; nothing of ${platform} was written`);
    say(`${platform}: ${check.detail}`);
    const allow = idsFromFlag(known, users, check);
    writePlatform(paths, config, { platform, env: Object.fromEntries(typed), allow, check }, say, env);
  }
}

/** The model settings from the flags, over the provider's defaults and the current config; tested unless --no-check. */
async function modelFromFlags(options: SetupOptions, config: HermesConfig, env: NodeJS.ProcessEnv): Promise<ModelChoice> {
  const { MODEL_PROVIDERS, baseUrlProblem, isModelProvider, testModel } = await import('../setup/model-step.js');
  const { defaultConfig, savedKeyFor } = await import('../../config/index.js');
  if (options.provider !== undefined && !isModelProvider(options.provider)) {
    throw new Error(`setup: --provider: expected one of ${Object.keys(MODEL_PROVIDERS).join(', ')}, got "${options.provider}"`);
  }
  const provider = options.provider !== undefined && isModelProvider(options.provider) ? MODEL_PROVIDERS[options.provider] : undefined;
  const presetUrl = provider?.baseUrl === 'default' ? defaultConfig().model.base_url : provider?.baseUrl === 'ask' ? undefined : provider?.baseUrl;
  const baseUrl = (options.baseUrl ?? presetUrl ?? config.model.base_url).replace(/\/+$/, '');
  const problem = baseUrlProblem(baseUrl);
  if (problem) throw new Error(`setup: --base-url: ${problem}`);
  const choice: ModelChoice = {
    ...(provider ? { api: provider.api } : {}),
    baseUrl,
    name: options.model ?? config.model.name,
    apiKeyEnv: options.apiKeyEnv ?? provider?.apiKeyEnv ?? config.model.api_key_env,
    apiKey: options.apiKey ?? '',
  };
  if (!choice.name) throw new Error('setup: no model: pass --model <id> (the server\'s model list: GET <base-url>/models)');
  // The saved key goes only to the base URL it was saved for: written as it is, the variable would send it here.
  const saved = choice.apiKey ? undefined : savedKeyFor(choice.apiKeyEnv, baseUrl, config.model, env).withheld;
  if (saved) throw new Error(`setup: ${saved} (--api-key); the model settings were not written`);
  if (options.check) {
    const result = await testModel(config, choice, env);
    if (!result.ok) throw new Error(`setup: the test call failed: ${result.detail}${result.fix ? ` → ${result.fix}` : ''}. The model settings were not written (--no-check writes them anyway).`);
    console.log(`model: ${result.detail}`);
    if (result.fix) console.log(`warning: ${result.fix}`);
  }
  return choice;
}

function writeModel(paths: HermesPaths, choice: ModelChoice, say: (line: string) => void, env: NodeJS.ProcessEnv): void {
  if (choice.apiKey) {
    setDotEnvValue(paths.env, choice.apiKeyEnv, choice.apiKey);
    env[choice.apiKeyEnv] = choice.apiKey;
    say(`${choice.apiKeyEnv} saved in ${paths.env} (mode 0600)`);
  }
  if (choice.api) setConfigValue(paths.config, 'model.provider', choice.api);
  setConfigValue(paths.config, 'model.base_url', choice.baseUrl);
  setConfigValue(paths.config, 'model.name', choice.name);
  setConfigValue(paths.config, 'model.api_key_env', choice.apiKeyEnv);
  say(`model.base_url = ${choice.baseUrl}, model.name = ${choice.name}, model.api_key_env = ${choice.apiKeyEnv} (${paths.config})`);
}

function writePlatform(paths: HermesPaths, config: HermesConfig, choice: PlatformChoice, say: (line: string) => void, env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(choice.env)) {
    setDotEnvValue(paths.env, name, value);
    env[name] = value;
    say(`${name} saved in ${paths.env} (mode 0600)`);
  }
  const key = `platforms.${choice.platform}`;
  const section = platformSection(config, choice.platform);
  if (!section) throw new Error(`setup: the config has no ${key} section`);
  if (!section.enabled) setConfigValue(paths.config, `${key}.enabled`, true);
  const allowed = section.allowed_users;
  const added = choice.allow.filter((id) => !allowed.includes(id));
  if (added.length > 0) {
    const next = [...allowed, ...added];
    setConfigValue(paths.config, `${key}.allowed_users`, next);
    section.allowed_users = next;
    say(`${key}.allowed_users = [${next.join(', ')}]`);
  } else if (allowed.length === 0) {
    say(`warning: ${key}.allowed_users is empty: the bot refuses everyone on ${choice.platform} (it tells each person their id; add it and the gateway picks it up)`);
  }
}

async function loadRegistry(config: HermesConfig, paths: HermesPaths): Promise<{ registry: ProviderRegistry }> {
  const { loadProviderRegistry } = await import('../../environments/index.js');
  const { registry, plugins } = await loadProviderRegistry({ config, paths });
  for (const plugin of plugins) for (const error of plugin.errors) console.error(`warning: plugin ${plugin.name}: ${error}`);
  return { registry };
}

/** Shows the backend's notes, runs its post-setup step, then writes terminal.backend. */
async function setBackend(registry: ProviderRegistry, paths: HermesPaths, name: string, say: (line: string) => void): Promise<void> {
  const provider = registry.require(name);
  say(`\n${provider.displayName} [${provider.name}]`);
  const instructions = await provider.setupInstructions();
  if (instructions) say(instructions);
  if (!(await provider.isAvailable())) {
    say(`warning: ${provider.name} is not available on this host yet; \`hermes doctor\` shows what is missing`);
  }
  try {
    await provider.postSetup();
  } catch (error) {
    throw new Error(`setup: ${provider.name}: post-setup step failed: ${errorMessage(error)}; terminal.backend was not changed`);
  }
  setConfigValue(paths.config, 'terminal.backend', provider.name, backendCheck(registry));
  say(`terminal.backend = ${provider.name} (${paths.config})`);
}
