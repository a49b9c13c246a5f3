import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { BOT_MESSAGE_LIMIT, BOT_PAUSE_NOTICE } from '../../src/gateway/group-policy.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { modelSaw, startTelegramGateway, testClock } from '../pairing/telegram-gateway.js';

const ADA = 1001;
const BOB = 2002;
const GROUP = -100777;
const OTHER_BOT = 4242;

let api: FakeTelegramApi | undefined;
let running: RunningGateway | undefined;
let model: FakeOpenAI | undefined;
let home: string | undefined;

afterEach(async () => {
  await running?.stop();
  await model?.close();
  await api?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  running = model = api = home = undefined;
});

async function start(telegram: Record<string, unknown>, allowed = [ADA, BOB]): Promise<{ api: FakeTelegramApi; model: FakeOpenAI }> {
  home = mkdtempSync(join(tmpdir(), 'hermes-groups-'));
  api = await new FakeTelegramApi().start();
  ({ running, model } = await startTelegramGateway({ home, api, telegram, allowed, clock: testClock() }));
  expect(running.report.started).toEqual(['telegram']);
  return { api, model };
}

const groupTexts = (bot: FakeTelegramApi) => bot.sentTo(GROUP).map((sent) => sent.text);
const say = (bot: FakeTelegramApi, text: string, options: { userId?: number; replyToBotMessage?: number; fromBot?: boolean } = {}) =>
  bot.injectMessage({ chatId: GROUP, chatType: 'supergroup', userId: options.userId ?? ADA, text, ...options });

describe('group chats end to end: the gateway\'s one group policy on the fake Bot API', () => {
  it('unmentioned messages are ignored; a mention, a reply to the bot and a wake word are answered', async () => {
    const { api, model } = await start({ wake_words: ['^hey hermes\\b'] });
    say(api, 'lunch at noon? [G0]');
    say(api, '@hermes_test_bot what is 2+2 [G1]');
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[G1]')), 'the answer to the mention');
    const answer = api.sentTo(GROUP).find((sent) => sent.text.includes('[G1]'))!;
    say(api, 'and times 3? [G2]', { replyToBotMessage: answer.message_id });
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[G2]')), 'the answer to the reply');
    say(api, 'Hey Hermes, the weather [G3]', { userId: BOB });
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[G3]')), 'the answer to the wake word');
    say(api, 'hermes is a nice name [G4]');
    await sleep(500);
    expect(modelSaw(model, '[G0]')).toBe(false);
    expect(modelSaw(model, '[G4]')).toBe(false);
    expect(groupTexts(api)).toHaveLength(3);
  }, 60_000);

  it('allowed_chats: a group that is not listed is ignored, and in a listed one anyone may talk', async () => {
    const { api, model } = await start({ allowed_chats: [String(GROUP)] });
    api.injectMessage({ chatId: -100888, chatType: 'group', userId: ADA, text: '@hermes_test_bot here? [C1]' });
    say(api, '@hermes_test_bot a stranger asks [C2]', { userId: 9009 });
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[C2]')), 'the stranger in the allowed chat answered');
    await sleep(300);
    expect(modelSaw(model, '[C1]')).toBe(false);
    expect(api.sentTo(-100888)).toHaveLength(0);
  }, 60_000);

  it('per_user gives two people two sessions in one group thread', async () => {
    const { api, model } = await start({ group_sessions: 'per_user' });
    say(api, '@hermes_test_bot remember apples [U1]');
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[U1]')), 'Ada answered');
    say(api, '@hermes_test_bot what did I say [U2]', { userId: BOB });
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[U2]')), 'Bob answered');
    say(api, '@hermes_test_bot and now [U3]');
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[U3]')), 'Ada answered again');
    const request = (tag: string) => model.requests.find((r) => JSON.stringify(r.body.messages[r.body.messages.length - 1]).includes(tag))!;
    // Bob's session has none of Ada's messages; Ada's second turn has her first one.
    expect(JSON.stringify(request('[U2]').body.messages)).not.toContain('[U1]');
    expect(JSON.stringify(request('[U3]').body.messages)).toContain('[U1]');
    expect(JSON.stringify(request('[U3]').body.messages)).not.toContain('[U2]');
    // All replies in the one group thread.
    expect(api.sentTo(GROUP).every((sent) => sent.reply_to_message_id !== undefined)).toBe(true);
  }, 60_000);

  it("other bots are ignored by default", async () => {
    const { api, model } = await start({ require_mention: false }, [ADA, BOB, OTHER_BOT]);
    say(api, 'beep from a bot [R0]', { userId: OTHER_BOT, fromBot: true });
    say(api, 'a person [R1]');
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[R1]')), 'the person answered');
    expect(modelSaw(model, '[R0]')).toBe(false);
  }, 60_000);

  it('two bots answering each other are stopped at the limit with a notice', async () => {
    // The other bot is allow-listed: only the loop guard stands between the two (no client-side
    // rate limit: Telegram's 20 a minute in groups would make this take a minute).
    const { api, model } = await start({ require_mention: false, allow_bots: true, throttle: false }, [ADA, BOB, OTHER_BOT]);
    // The other bot answers every message our bot sends in the group, as a bot would.
    let round = 0;
    const stopListening = api.subscribe((call) => {
      if (call.method !== 'sendMessage' || String(call.params.chat_id) !== String(GROUP)) return;
      round += 1;
      setTimeout(() => say(api, `bot says ${round} [B${round}]`, { userId: OTHER_BOT, fromBot: true }), 10);
    });
    try {
      say(api, 'bot says 0 [B0]', { userId: OTHER_BOT, fromBot: true });
      await api.waitFor(() => groupTexts(api).includes(BOT_PAUSE_NOTICE), 'the pause notice');
      await sleep(1000);
    } finally {
      stopListening();
    }
    const botTurns = model.requests.length;
    expect(botTurns).toBe(BOT_MESSAGE_LIMIT);
    expect(groupTexts(api).filter((text) => text === BOT_PAUSE_NOTICE)).toHaveLength(1);
    // A person writing ends the pause.
    say(api, 'a person again [P1]');
    await api.waitFor(() => groupTexts(api).some((text) => text.includes('[P1]')), 'the person answered');
  }, 90_000);
});
