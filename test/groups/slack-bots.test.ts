import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { FakeSlack } from '../fakes/slack-server.js';
import { startE2eGateway } from '../fakes/slack-e2e-model.js';
import { modelSaw } from '../pairing/telegram-gateway.js';

const KEY_VAR = 'HERMES_SLACK_BOTS_KEY';
process.env[KEY_VAR] = 'sk-fake';

let slack: FakeSlack | undefined;
let running: RunningGateway | undefined;
let model: FakeOpenAI | undefined;
let cleanup: (() => void) | undefined;

beforeAll(async () => {
  await Promise.all([import('../../src/cli/commands/gateway.js'), import('../../adapters/index.js')]);
}, 120_000);

afterEach(async () => {
  await running?.stop();
  await model?.close();
  await slack?.close();
  cleanup?.();
  running = model = slack = cleanup = undefined;
});

async function start(settings: Record<string, unknown>): Promise<{ slack: FakeSlack; model: FakeOpenAI }> {
  slack = await new FakeSlack().listen();
  // U1 a person, U0OTHER another workspace bot's user: both allow-listed, so only the group policy stands in the way.
  const env = { ...process.env, SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_SIGNING_SECRET: slack.signingSecret, SLACK_ALLOWED_USERS: 'U1,U0OTHER,B0HOOK' };
  ({ running, model, cleanup } = await startE2eGateway('slack', { mode: 'socket', api_url: slack.apiUrl, require_mention: false, ...settings }, env, KEY_VAR));
  expect(running.report.started).toEqual(['slack']);
  return { slack, model };
}

const posted = (fake: FakeSlack, tag: string) => fake.calls.some((call) => call.method === 'chat.postMessage' && String(call.params.text).includes(tag));

describe("Slack: other bots' messages go to the gateway's group policy", () => {
  it('a bot user and an integration (bot_message) are ignored by default, a person is answered', async () => {
    const { slack, model } = await start({});
    await slack.deliverSocket(slack.eventBody({ type: 'message', channel: 'C1', channel_type: 'channel', user: 'U0OTHER', bot_id: 'B0OTHER', text: 'bot user [S0]', ts: slack.nextTs() }));
    await slack.deliverSocket(slack.eventBody({ type: 'message', subtype: 'bot_message', channel: 'C1', channel_type: 'channel', bot_id: 'B0HOOK', text: 'webhook [S1]', ts: slack.nextTs() }));
    await slack.deliverSocket(slack.eventBody({ type: 'message', channel: 'C1', channel_type: 'channel', user: 'U1', text: 'a person [S2]', ts: slack.nextTs() }));
    await slack.waitForCall('chat.postMessage', (call) => String(call.params.text).includes('[S2]'), 30_000);
    await sleep(500);
    expect(modelSaw(model, '[S0]')).toBe(false);
    expect(modelSaw(model, '[S1]')).toBe(false);
    expect(posted(slack, '[S0]') || posted(slack, '[S1]')).toBe(false);
  }, 90_000);

  it('with allow_bots both bots are answered, and the bot never answers itself', async () => {
    const { slack, model } = await start({ allow_bots: true });
    await slack.deliverSocket(slack.eventBody({ type: 'message', channel: 'C1', channel_type: 'channel', user: 'U0OTHER', bot_id: 'B0OTHER', text: 'bot user [A0]', ts: slack.nextTs() }));
    await slack.waitForCall('chat.postMessage', (call) => String(call.params.text).includes('[A0]'), 30_000);
    await slack.deliverSocket(slack.eventBody({ type: 'message', subtype: 'bot_message', channel: 'C1', channel_type: 'channel', bot_id: 'B0HOOK', text: 'webhook [A1]', ts: slack.nextTs() }));
    await slack.waitForCall('chat.postMessage', (call) => String(call.params.text).includes('[A1]'), 30_000);
    await slack.deliverSocket(slack.eventBody({ type: 'message', channel: 'C1', channel_type: 'channel', user: slack.botUserId, bot_id: slack.botId, text: 'my own [A2]', ts: slack.nextTs() }));
    await sleep(500);
    expect(modelSaw(model, '[A2]')).toBe(false);
  }, 90_000);
});
