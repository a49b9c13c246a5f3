import { Command } from 'commander';
import { loadConfig, type ConfigOverrides, type LoadedConfig } from '../../src/config/index.js';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { registerPairingCommand } from '../../src/cli/commands/pairing.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fakes/openai-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';

const KEY_VAR = 'HERMES_PAIRING_E2E_KEY';

/** A clock the test moves: pairing codes and the bot-message limit read it. */
export interface TestClock {
  now: () => number;
  advance(ms: number): void;
}

export function testClock(): TestClock {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms) };
}

/** `hermes gateway` as the CLI starts it with only Telegram (on `api`), in `home`, the model echoing each message. */
export async function startTelegramGateway(options: {
  home: string;
  api: FakeTelegramApi;
  telegram: Record<string, unknown>;
  allowed: number[];
  clock: TestClock;
  model?: FakeOpenAI;
}): Promise<{ running: RunningGateway; model: FakeOpenAI }> {
  const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: options.api.token, TELEGRAM_ALLOWED_USERS: options.allowed.join(','), [KEY_VAR]: 'sk-fake' };
  delete env.TELEGRAM_WEBHOOK_URL;
  delete env.GATEWAY_ALLOW_ALL_USERS;
  const model = options.model ?? (await startFakeOpenAI({ fallback: { respond: (request) => ({ text: `echo: ${lastUserText(request)}` }) } }));
  const overrides: ConfigOverrides = {
    model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR, stream: false },
    platforms: { slack: { enabled: false }, discord: { enabled: false }, web: { enabled: false }, telegram: { api_root: options.api.apiRoot, ...options.telegram } },
    terminal: { platform_backend: 'local' },
  } as ConfigOverrides;
  const loaded: LoadedConfig = loadConfig({ home: options.home, overrides, loadEnv: false, env });
  const { startGateway } = await import('../../src/cli/commands/gateway.js');
  const running = await startGateway(loaded, { env, now: options.clock.now });
  return { running, model };
}

/** The text of the last user message of a model request. */
export function lastUserText(request: RecordedRequest): string {
  const users = request.body.messages.filter((message) => message.role === 'user');
  const last = users[users.length - 1];
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
}

/** True when some model request carried `text` from a user. */
export function modelSaw(model: FakeOpenAI, text: string): boolean {
  return model.requests.some((request) => request.body.messages.some((message) => message.role === 'user' && JSON.stringify(message.content).includes(text)));
}

/** Runs `hermes --home <home> pairing …` in this process (the real command) and gives what it printed and its exit code. */
export async function hermesPairing(home: string, args: string[], clock?: TestClock): Promise<{ out: string; code: number }> {
  const lines: string[] = [];
  const program = new Command('hermes').option('--home <dir>').exitOverride();
  registerPairingCommand(program, { print: (line) => lines.push(line), ...(clock ? { now: clock.now } : {}) });
  const before = process.exitCode;
  process.exitCode = 0;
  try {
    await program.parseAsync(['node', 'hermes', '--home', home, 'pairing', ...args]);
    return { out: lines.join('\n'), code: Number(process.exitCode ?? 0) };
  } finally {
    process.exitCode = before;
  }
}

/** The pairing code in a text the bot sent, if any. */
export function codeIn(text: string): string | undefined {
  return /pairing code is ([2-9A-Z]{8})\b/.exec(text)?.[1];
}
