import type { ConfigOverrides, LoadedConfig } from '../../src/config/index.js';
import { loadConfig } from '../../src/config/index.js';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import type { FakeDiscord } from '../fakes/discord-server.js';
import { lastUserText, type TestClock } from '../pairing/telegram-gateway.js';

const KEY_VAR = 'HERMES_DISCORD_GROUPS_KEY';

/** `hermes gateway` as the CLI starts it with only Discord (on the fake `discord`), in `home`, the model echoing each message. */
export async function startDiscordGateway(options: {
  home: string;
  discord: FakeDiscord;
  settings: Record<string, unknown>;
  allowed: string[];
  clock: TestClock;
}): Promise<{ running: RunningGateway; model: FakeOpenAI }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DISCORD_BOT_TOKEN: options.discord.token,
    DISCORD_ALLOWED_USERS: options.allowed.join(','),
    [KEY_VAR]: 'sk-fake',
  };
  delete env.GATEWAY_ALLOW_ALL_USERS;
  const model = await startFakeOpenAI({ fallback: { respond: (request) => ({ text: `echo: ${lastUserText(request)}` }) } });
  const overrides = {
    model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR, stream: false },
    platforms: { slack: { enabled: false }, telegram: { enabled: false }, web: { enabled: false }, discord: { api_url: options.discord.apiUrl, ...options.settings } },
    terminal: { platform_backend: 'local' },
  } as ConfigOverrides;
  const loaded: LoadedConfig = loadConfig({ home: options.home, overrides, loadEnv: false, env });
  const { startGateway } = await import('../../src/cli/commands/gateway.js');
  const running = await startGateway(loaded, { env, now: options.clock.now });
  return { running, model };
}
