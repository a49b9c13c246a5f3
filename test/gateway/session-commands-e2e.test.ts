import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { loadConfig } from '../../src/config/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { FakeSlack } from '../fakes/slack-server.js';
import { FakeDiscord, type FakeDiscordUser } from '../fakes/discord-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { e2eModel, startE2eGateway } from '../fakes/slack-e2e-model.js';

/*
 * /retry, /undo, /model, /usage and /compress through each platform's fake, the real gateway,
 * the real agent with state.db, and the fake model: the same conversation on every platform.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
const KEY_VAR = 'HERMES_SESSION_COMMANDS_E2E_KEY';
process.env[KEY_VAR] = 'sk-fake';

interface Driver {
  send(text: string): Promise<void>;
  /** Everything the bot has shown in the conversation, in order (edits included). */
  texts(): Promise<string[]>;
}

let stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

beforeAll(async () => {
  await Promise.all([import('../../src/agent/index.js'), import('../../adapters/index.js'), import('../../src/gateway/index.js')]);
}, 120_000);

async function waitForText(driver: Driver, check: (texts: string[]) => boolean, what: string): Promise<string[]> {
  const started = Date.now();
  for (;;) {
    const texts = await driver.texts();
    if (check(texts)) return texts;
    if (Date.now() - started > 30_000) throw new Error(`gave up waiting for ${what}; the bot said:\n${texts.join('\n---\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const count = (texts: string[], text: string) => texts.filter((t) => t === text).length;

/** The same conversation on any platform: six turns, then each session command. */
async function conversation(driver: Driver, model: FakeOpenAI): Promise<void> {
  for (let i = 1; i <= 6; i++) {
    await driver.send(`m${i}`);
    await waitForText(driver, (texts) => texts.includes(`echo: m${i}`), `the answer to m${i}`);
  }
  await driver.send('/usage');
  const usage = (await waitForText(driver, (texts) => texts.some((t) => t.startsWith('Last turn: ')), '/usage')).find((t) => t.startsWith('Last turn: '))!;
  expect(usage).toMatch(/^Last turn: [\d,]+ in \+ [\d,]+ out tokens \(1 model call\)\nSession: [\d,]+ in \+ [\d,]+ out tokens \(6 model calls\)\nContext: about/);

  await driver.send('/model other-model');
  await waitForText(driver, (texts) => texts.some((t) => t.startsWith('This thread now uses other-model')), '/model');

  const before = model.requests.length;
  await driver.send('/retry');
  await waitForText(driver, (texts) => count(texts, 'echo: m6') === 2, 'the retried answer');
  const retried = model.requests.slice(before);
  expect(retried.map((r) => r.body.model)).toEqual(['other-model']);
  // The retried turn replaced the first one: m6 is in the request once.
  expect(retried[0].body.messages.filter((m) => m.role === 'user' && m.content === 'm6')).toHaveLength(1);

  await driver.send('/undo');
  await waitForText(driver, (texts) => texts.some((t) => t.startsWith('Dropped the last turn (“m6”)')), '/undo');

  await driver.send('/compress');
  await waitForText(driver, (texts) => texts.some((t) => /^Compacted 1 turn: [\d.]+k? → [\d.]+k? tokens/.test(t)), '/compress');
  await driver.send('after');
  await waitForText(driver, (texts) => texts.includes('echo: after'), 'the answer after /compress');
  const last = model.requests.at(-1)!.body.messages;
  expect(String(last[1].content)).toMatch(/^\[Summary of the earlier conversation \(1 turn summarised/);
  expect(JSON.stringify(last)).not.toContain('"m6"');
}

describe.runIf(hasPython || process.env.CI === 'true')('session commands on every platform', { timeout: 120_000 }, () => {
  it('Telegram: /usage, /model, /retry, /undo, /compress', async () => {
    const api = await new FakeTelegramApi().start();
    const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: '1001' };
    delete env.TELEGRAM_WEBHOOK_URL;
    const { running, model, cleanup } = await startE2eGateway('telegram', { api_root: api.apiRoot }, env, KEY_VAR);
    stops.push(() => api.close(), () => model.close(), cleanup, () => running.stop());
    await conversation(
      {
        send: async (text) => void api.injectMessage({ chatId: 1001, userId: 1001, text }),
        texts: async () => api.sentTo(1001).map((sent) => sent.text),
      },
      model,
    );
  });

  it('Slack: the same in a thread', async () => {
    const slack = await new FakeSlack().listen();
    const env = { ...process.env, SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_SIGNING_SECRET: slack.signingSecret, SLACK_ALLOWED_USERS: 'U1' };
    const { running, model, cleanup } = await startE2eGateway('slack', { mode: 'socket', api_url: slack.apiUrl }, env, KEY_VAR);
    stops.push(() => slack.close(), () => model.close(), cleanup, () => running.stop());
    const thread = slack.nextTs();
    let first = true;
    await conversation(
      {
        send: async (text) => {
          const ts = first ? thread : slack.nextTs();
          const event = { type: 'app_mention', channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> ${text}`, ts, ...(first ? {} : { thread_ts: thread }) };
          first = false;
          await slack.deliverSocket(slack.eventBody(event));
        },
        texts: async () =>
          slack.calls.filter((call) => (call.method === 'chat.postMessage' || call.method === 'chat.update') && (call.params.thread_ts === thread || call.method === 'chat.update')).map((call) => String(call.params.text)),
      },
      model,
    );
  });

  it('Discord: the same in the bot\'s thread', async () => {
    const discord = await new FakeDiscord().listen();
    const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };
    const env = { ...process.env, DISCORD_BOT_TOKEN: discord.token, DISCORD_ALLOWED_USERS: alice.id };
    const { running, model, cleanup } = await startE2eGateway('discord', { api_url: discord.apiUrl }, env, KEY_VAR);
    stops.push(() => discord.close(), () => model.close(), cleanup, () => running.stop());
    let thread: string | undefined;
    await conversation(
      {
        send: async (text) => {
          if (!thread) thread = discord.userMessage({ author: alice, content: text, mentionBot: true });
          else discord.userMessage({ author: alice, content: text, channelId: thread });
        },
        texts: async () =>
          discord.calls
            .filter((call) => (call.method === 'POST' || call.method === 'PATCH') && call.path.startsWith(`/channels/${thread}/messages`))
            .map((call) => String(call.body?.content)),
      },
      model,
    );
  });

  it('the web chat: the same over its HTTP API', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-web-commands-'));
    const model = await startFakeOpenAI({ fallback: e2eModel(home) });
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_BOT_TOKEN']) delete env[name];
    const loaded = loadConfig({
      home,
      loadEnv: false,
      env,
      overrides: { model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR }, platforms: { web: { port: 0, auth: 'none' } } },
    });
    const printed: string[] = [];
    const { startGateway } = await import('../../src/cli/commands/gateway.js');
    const running: RunningGateway = await startGateway(loaded, { env, print: (line) => printed.push(line) });
    stops.push(() => rmSync(home, { recursive: true, force: true }), () => model.close(), () => running.stop());
    const base = /web chat: (http:\/\/127\.0\.0\.1:\d+)/.exec(printed.join('\n'))?.[1];
    expect(base, printed.join('\n')).toBeDefined();
    const { id } = (await (await fetch(`${base}/api/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { id: string };
    await conversation(
      {
        send: async (text) => {
          const response = await fetch(`${base}/api/threads/${id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
          expect(response.status).toBe(202);
        },
        texts: async () => {
          const thread = (await (await fetch(`${base}/api/threads/${id}`)).json()) as { entries: Array<{ kind: string; text?: string }> };
          return thread.entries.filter((entry) => entry.kind === 'assistant' || entry.kind === 'notice').map((entry) => String(entry.text));
        },
      },
      model,
    );
  });
});
