import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { FakeSlack } from '../fakes/slack-server.js';
import { FakeDiscord } from '../fakes/discord-server.js';
import { runHermes } from './cli-process.js';
import { freePort } from '../helpers/loopback-server.js';

const KEY = 'sk-setup-test-key';
const TOOL_CALL = { toolCalls: [{ name: 'hermes_check', arguments: { word: 'ready' } }] };

let model: FakeOpenAI;
let telegram: FakeTelegramApi;
let slack: FakeSlack;
let discord: FakeDiscord;

beforeAll(async () => {
  model = await startFakeOpenAI({ apiKey: KEY, models: ['fake-tools-model'], listModels: ['fake-tools-model'], fallback: TOOL_CALL });
  telegram = await new FakeTelegramApi().start();
  slack = await new FakeSlack().listen();
  discord = await new FakeDiscord().listen();
});

afterAll(async () => {
  await Promise.all([model.close(), telegram.close(), slack.close(), discord.close()]);
});

/** A HERMES_HOME whose config points every platform client at its fake. */
function home(extra = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-setup-fakes-'));
  writeFileSync(join(dir, 'config.yaml'), [
    '# written by the test',
    'platforms:',
    '  telegram:',
    `    api_root: ${telegram.apiRoot}`,
    '  slack:',
    `    api_url: ${slack.apiUrl}`,
    '  discord:',
    `    api_url: ${discord.apiUrl}`,
    extra,
  ].join('\n'));
  return dir;
}

/** A port nothing listens on. */
const closedPort = freePort;

// Real CLI runs checking fake services and the machine's backends: 8–15 s a test here, past 30 s under CI's load.
describe('hermes setup --non-interactive against fake servers', { timeout: 120_000 }, () => {
  it('writes a config and a 0600 .env that hermes doctor passes: model tested with a tool call, every platform token checked, ids found', async () => {
    const root = home();
    telegram.injectMessage({ chatId: 4242, userId: 4242, text: 'hello bot', firstName: 'Ada' });
    const run = await runHermes(root, [
      'setup', '--non-interactive',
      '--provider', 'custom', '--base-url', model.url, '--model', 'fake-tools-model', '--api-key', KEY,
      '--backend', 'local',
      '--telegram-token', telegram.token, '--telegram-user', 'auto',
      '--slack-bot-token', slack.botToken, '--slack-app-token', slack.appToken, '--slack-user', 'U0ADA',
      '--discord-token', discord.token, '--discord-user', 'auto',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('model: fake-tools-model at');
    expect(run.stdout).toContain('telegram: the bot is @hermes_test_bot');
    expect(run.stdout).toContain('slack: the bot is hermes in Fake; the app token opens Socket Mode');
    expect(run.stdout).toContain('discord: the bot is hermes');
    // The test call carried the key and offered a tool.
    const checked = model.requests.find((request) => request.body.tools?.some((tool) => tool.function.name === 'hermes_check'));
    expect(checked?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(slack.callsTo('auth.test').at(-1)?.token).toBe(slack.botToken);

    const config = parse(readFileSync(join(root, 'config.yaml'), 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;
    expect(readFileSync(join(root, 'config.yaml'), 'utf8')).toContain('# written by the test');
    expect(config.model).toMatchObject({ base_url: model.url, name: 'fake-tools-model', api_key_env: 'MODEL_API_KEY' });
    expect(config.terminal).toMatchObject({ backend: 'local' });
    expect((config.platforms.telegram as { allowed_users: unknown }).allowed_users).toEqual(['4242']);
    expect((config.platforms.slack as { allowed_users: unknown }).allowed_users).toEqual(['U0ADA']);
    expect((config.platforms.discord as { allowed_users: unknown }).allowed_users).toEqual([discord.owner.id]);
    const envFile = join(root, '.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const env = readFileSync(envFile, 'utf8');
    for (const line of [`MODEL_API_KEY='${KEY}'`, `TELEGRAM_BOT_TOKEN='${telegram.token}'`, `SLACK_BOT_TOKEN='${slack.botToken}'`, `SLACK_APP_TOKEN='${slack.appToken}'`, `DISCORD_BOT_TOKEN='${discord.token}'`]) {
      expect(env).toContain(line);
    }
    // Reading updates without an offset confirmed none: the gateway still gets the message.
    expect(telegram.updates.length).toBeGreaterThan(0);

    const requestsBefore = model.requests.length;
    const pollsBefore = telegram.callsOf('getUpdates').length;
    const doctor = await runHermes(root, ['doctor']);
    // Doctor never polls: a getUpdates would end a running gateway's long poll.
    expect(telegram.callsOf('getUpdates').length).toBe(pollsBefore);
    expect(doctor.stdout).toMatch(/^\[ ok \] model: fake-tools-model at http:\/\/127\.0\.0\.1:\d+\/v1 answered and called a tool$/m);
    expect(doctor.stdout).toMatch(/^\[ ok \] platform telegram: ready: the bot is @hermes_test_bot, 1 user\(s\) allowed$/m);
    expect(doctor.stdout).toMatch(/^\[ ok \] platform slack: ready: the bot is hermes in Fake; the app token opens Socket Mode, 1 user\(s\) allowed$/m);
    expect(doctor.stdout).toMatch(/^\[ ok \] platform discord: ready: the bot is hermes, 1 user\(s\) allowed$/m);
    expect(doctor.stdout).toContain('all required checks passed');
    expect(doctor.code).toBe(0);
    expect(model.requests.length).toBe(requestsBefore + 1);
  });

  it('refuses a token the platform refuses and writes nothing of that platform', async () => {
    const root = home();
    const run = await runHermes(root, ['setup', '--non-interactive', '--telegram-token', '999:not-the-token', '--telegram-user', '1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/setup: telegram: Telegram refused the token \(getMe: .*401.*\); copy it again from @BotFather/);
    expect(() => readFileSync(join(root, '.env'), 'utf8')).toThrow(/ENOENT/);
    expect(readFileSync(join(root, 'config.yaml'), 'utf8')).not.toContain('allowed_users');
  });

  it('refuses a Discord application whose Message Content intent is off, saying where to turn it on', async () => {
    const root = home();
    discord.applicationFlags = 0;
    try {
      const run = await runHermes(root, ['setup', '--discord-token', discord.token, '--discord-user', 'auto']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/setup: discord: the bot is hermes, but its Message Content Intent is off; turn it on in the Developer Portal under Bot → Privileged Gateway Intents/);
      expect(() => readFileSync(join(root, '.env'), 'utf8')).toThrow(/ENOENT/);
    } finally {
      discord.applicationFlags = 1 << 18;
    }
  });

  it('does not write model settings whose test call fails (a refused key), and says what to do', async () => {
    const root = home();
    const run = await runHermes(root, ['setup', '--non-interactive', '--provider', 'custom', '--base-url', model.url, '--model', 'fake-tools-model', '--api-key', 'sk-wrong']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/setup: the test call failed: The model API at .* refused the key \(401/);
    expect(run.stderr).toContain('The model settings were not written');
    expect(readFileSync(join(root, 'config.yaml'), 'utf8')).not.toContain('fake-tools-model');
    expect(() => readFileSync(join(root, '.env'), 'utf8')).toThrow(/ENOENT/);
  });

  it('--telegram-user auto with no message to the bot yet fails and says how to find the id', async () => {
    const root = home();
    const quiet = await new FakeTelegramApi({ token: '777:quiet' }).start();
    try {
      writeFileSync(join(root, 'config.yaml'), `platforms:\n  telegram:\n    api_root: ${quiet.apiRoot}\n`);
      const run = await runHermes(root, ['setup', '--telegram-token', '777:quiet', '--telegram-user', 'auto']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/--telegram-user auto: no message has reached the bot yet: send it one, then run setup again; or pass your numeric user id/);
    } finally {
      await quiet.close();
    }
  });
});

describe('hermes doctor', { timeout: 120_000 }, () => {
  it('fails on an unreachable model URL and names the fix', async () => {
    const root = home(`model:\n  base_url: http://127.0.0.1:${await closedPort()}/v1\n  name: some-model\n  api_key_env: DOCTOR_TEST_KEY\n`);
    const run = await runHermes(root, ['doctor']);
    expect(run.stdout).toMatch(/^\[FAIL\] model: I cannot reach the model API at http:\/\/127\.0\.0\.1:\d+\/v1 .*\n {7}→ start the model server, or point model\.base_url at one that runs/m);
    expect(run.stdout).toMatch(/required check\(s\) failed/);
    expect(run.code).toBe(1);
  });

  it('fails on an empty model name', async () => {
    const run = await runHermes(home(), ['doctor']);
    expect(run.stdout).toMatch(/^\[FAIL\] model: model\.name is empty: the gateway has no model to ask\n {7}→ hermes setup/m);
    expect(run.code).toBe(1);
  });

  it('warns when the model answers with text instead of calling the offered tool', async () => {
    const texter = await startFakeOpenAI({ fallback: { text: 'I would rather talk.' } });
    try {
      const run = await runHermes(home(`model:\n  base_url: ${texter.url}\n  name: chatty\n  api_key_env: DOCTOR_TEST_KEY\n`), ['doctor']);
      expect(run.stdout).toMatch(/^\[warn\] model: chatty at .* answered, but with text instead of calling the offered tool\n {7}→ execute_code and every other tool need a model that calls tools/m);
      expect(texter.requests[0].body.tools?.[0].function.name).toBe('hermes_check');
    } finally {
      await texter.close();
    }
  });

  it('fails when a platform has its token but an empty allow-list', async () => {
    const root = home(`model:\n  base_url: ${model.url}\n  name: fake-tools-model\n  api_key_env: DOCTOR_TEST_KEY\n`);
    writeFileSync(join(root, '.env'), `DOCTOR_TEST_KEY=${KEY}\nTELEGRAM_BOT_TOKEN=${telegram.token}\n`);
    const run = await runHermes(root, ['doctor']);
    expect(run.stdout).toMatch(/^\[ ok \] model: /m);
    expect(run.stdout).toMatch(/^\[FAIL\] platform telegram: the bot is @hermes_test_bot, but the allow-list is empty: the bot refuses everyone there\n {7}→ hermes setup finds your own telegram id; or put TELEGRAM_ALLOWED_USERS=<id>,<id> in /m);
    expect(run.code).toBe(1);
    const allowed = await runHermes(root, ['doctor'], { TELEGRAM_ALLOWED_USERS: '4242' });
    expect(allowed.stdout).toMatch(/^\[ ok \] platform telegram: ready: the bot is @hermes_test_bot, 1 user\(s\) allowed$/m);
    expect(allowed.code).toBe(0);
  });

  // The fix names podman where its engine answers (as in CI), else how to start an engine.
  it('fails when the platform refuses a token it has', async () => {
    const root = home(`model:\n  base_url: ${model.url}\n  name: fake-tools-model\n  api_key_env: DOCTOR_TEST_KEY\n`);
    writeFileSync(join(root, '.env'), `DOCTOR_TEST_KEY=${KEY}\nDISCORD_BOT_TOKEN=revoked.token\nDISCORD_ALLOWED_USERS=1\n`);
    const run = await runHermes(root, ['doctor']);
    expect(run.stdout).toMatch(/^\[FAIL\] platform discord: Discord refused the token \(.*\); reset and copy it under Bot → Token in the Developer Portal\n {7}→ hermes setup/m);
    expect(run.code).toBe(1);
  });

  it('fails on a container engine that does not answer, with how to start one or switch', async () => {
    const root = home();
    const dead = join(root, 'dead-docker');
    writeFileSync(dead, '#!/bin/sh\necho "Cannot connect to the Docker daemon at unix:///nonexistent/docker.sock. Is the docker daemon running?" >&2\nexit 1\n');
    chmodSync(dead, 0o755);
    writeFileSync(join(root, 'config.yaml'), `terminal:\n  backend: docker\n  docker:\n    binary: ${dead}\n`);
    const run = await runHermes(root, ['doctor']);
    expect(run.stdout).toMatch(/^\[FAIL\] docker: engine: terminal\.docker\.binary \(.*dead-docker\) does not answer: .*Cannot connect to the Docker daemon.*\n {7}→ (start the engine \(systemctl start docker\), or install podman|podman answers: hermes config set terminal\.docker\.binary podman)/m);
    expect(run.code).toBe(1);
  });
});
