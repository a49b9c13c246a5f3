import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { BOT_MESSAGE_LIMIT, BOT_PAUSE_NOTICE } from '../../src/gateway/group-policy.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { FakeDiscord, type DiscordCall, type FakeDiscordUser } from '../fakes/discord-server.js';
import { modelSaw, testClock } from '../pairing/telegram-gateway.js';
import { startDiscordGateway } from './discord-gateway.js';

const ada: FakeDiscordUser = { id: '800000000000000001', username: 'ada' };
const bob: FakeDiscordUser = { id: '800000000000000002', username: 'bob' };
const robot: FakeDiscordUser = { id: '800000000000000009', username: 'robot', bot: true };

let discord: FakeDiscord | undefined;
let running: RunningGateway | undefined;
let model: FakeOpenAI | undefined;
let home: string | undefined;

beforeAll(async () => {
  await Promise.all([import('../../src/cli/commands/gateway.js'), import('../../adapters/index.js')]);
}, 120_000);

afterEach(async () => {
  await running?.stop();
  await model?.close();
  await discord?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  running = model = discord = home = undefined;
});

async function start(settings: Record<string, unknown>, allowed = [ada.id, bob.id]): Promise<{ discord: FakeDiscord; model: FakeOpenAI }> {
  home = mkdtempSync(join(tmpdir(), 'hermes-discord-groups-'));
  discord = await new FakeDiscord().listen();
  ({ running, model } = await startDiscordGateway({ home, discord, settings, allowed, clock: testClock() }));
  expect(running.report.started).toEqual(['discord']);
  return { discord, model };
}

/** What the bot posted in a channel or thread, oldest first. */
const postedIn = (fake: FakeDiscord, channelId: string) => fake.messages.filter((m) => m.channel_id === channelId).map((m) => m.content);
const answered = (fake: FakeDiscord, channelId: string, tag: string) =>
  fake.waitForCall('POST', new RegExp(`^/channels/${channelId}/messages$`), (call: DiscordCall) => String(call.body?.content).includes(tag), 30_000);
/** The model request whose last message holds `tag`. */
const requestWith = (fake: FakeOpenAI, tag: string) => fake.requests.find((r) => JSON.stringify(r.body.messages[r.body.messages.length - 1]).includes(tag));

describe("Discord guild channels through the gateway's one group policy (fake Discord, real discord.js)", () => {
  it('unmentioned messages are ignored; a mention (in a new thread), a reply to the bot and a wake word are answered', async () => {
    const { discord, model } = await start({ wake_words: ['^hey hermes\\b'] });
    discord.userMessage({ author: ada, content: 'lunch at noon? [D0]' });
    const mention = discord.userMessage({ author: ada, content: 'what is 2+2 [D1]', mentionBot: true });
    // A mention opens a thread from the message (its id), where the answer goes.
    await answered(discord, mention, '[D1]');
    discord.userMessage({ author: bob, content: 'Hey Hermes, the weather [D2]' });
    await answered(discord, discord.channelId, '[D2]');
    const botAnswer = discord.messages.find((m) => m.channel_id === discord!.channelId && m.content.includes('[D2]'))!;
    discord.userMessage({ author: bob, content: 'and tomorrow? [D3]', replyTo: botAnswer.id });
    await answered(discord, discord.channelId, '[D3]');
    discord.userMessage({ author: ada, content: 'hermes is a nice name [D4]' });
    await sleep(500);
    expect(modelSaw(model, '[D0]')).toBe(false);
    expect(modelSaw(model, '[D4]')).toBe(false);
    // The reply continues the channel's session, where the wake word started it.
    expect(JSON.stringify(requestWith(model, '[D3]')!.body.messages)).toContain('[D2]');
    expect(postedIn(discord, discord.channelId)).toHaveLength(2);
    expect(discord.callsTo('POST', /\/threads$/)).toHaveLength(1);
  }, 90_000);

  it('per_user gives two people two sessions in one bot thread, and every reply stays in the thread', async () => {
    const { discord, model } = await start({ group_sessions: 'per_user' });
    const thread = discord.userMessage({ author: ada, content: 'remember apples [U1]', mentionBot: true });
    await answered(discord, thread, '[U1]');
    discord.userMessage({ author: bob, content: 'what did I say [U2]', channelId: thread });
    await answered(discord, thread, '[U2]');
    discord.userMessage({ author: ada, content: 'and now [U3]', channelId: thread });
    await answered(discord, thread, '[U3]');
    expect(JSON.stringify(requestWith(model, '[U2]')!.body.messages)).not.toContain('[U1]');
    expect(JSON.stringify(requestWith(model, '[U3]')!.body.messages)).toContain('[U1]');
    expect(JSON.stringify(requestWith(model, '[U3]')!.body.messages)).not.toContain('[U2]');
    expect(postedIn(discord, thread)).toHaveLength(3);
  }, 90_000);

  it('allowed_chats names a channel: anyone may talk in it and in the threads opened there, other channels are ignored', async () => {
    const { discord, model } = await start({ allowed_chats: ['920000000000000001'] }, []);
    const thread = discord.userMessage({ author: bob, content: 'a stranger asks [C1]', mentionBot: true });
    await answered(discord, thread, '[C1]');
    discord.userMessage({ author: bob, content: 'and more [C2]', channelId: thread });
    await answered(discord, thread, '[C2]');
    discord.forumPost({ author: bob, title: 'Elsewhere', content: 'in the forum [C3]', mentionBot: true });
    await sleep(500);
    expect(modelSaw(model, '[C3]')).toBe(false);
  }, 90_000);

  it('other bots are ignored by default', async () => {
    const { discord, model } = await start({ require_mention: false }, [ada.id, robot.id]);
    discord.userMessage({ author: robot, content: 'beep [R0]', mentionBot: true });
    discord.userMessage({ author: ada, content: 'a person [R1]' });
    await answered(discord, discord.channelId, '[R1]');
    await sleep(300);
    expect(modelSaw(model, '[R0]')).toBe(false);
    expect(discord.callsTo('POST', /\/threads$/)).toHaveLength(0);
  }, 90_000);

  it('two bots answering each other are stopped at the limit with one notice; a person ends the pause', async () => {
    const { discord, model } = await start({ require_mention: false, allow_bots: true }, [ada.id, robot.id]);
    // The other bot answers every message our bot posts in the channel, as a bot would.
    let round = 0;
    const onCall = (call: DiscordCall): void => {
      if (call.method !== 'POST' || call.path !== `/channels/${discord.channelId}/messages`) return;
      round += 1;
      setTimeout(() => discord.userMessage({ author: robot, content: `bot says ${round} [B${round}]` }), 10);
    };
    discord.on('call', onCall);
    try {
      discord.userMessage({ author: robot, content: 'bot says 0 [B0]' });
      await answered(discord, discord.channelId, BOT_PAUSE_NOTICE);
      await sleep(1000);
    } finally {
      discord.off('call', onCall);
    }
    expect(model.requests).toHaveLength(BOT_MESSAGE_LIMIT);
    expect(postedIn(discord, discord.channelId).filter((text) => text === BOT_PAUSE_NOTICE)).toHaveLength(1);
    discord.userMessage({ author: ada, content: 'a person again [P1]' });
    await answered(discord, discord.channelId, '[P1]');
  }, 120_000);
});

describe('Discord forum channels: a post is a thread', () => {
  it('one session per post, answered in the post, and a bot-answered post needs no more mentions', async () => {
    const { discord, model } = await start({});
    const first = discord.forumPost({ author: ada, title: 'Install fails', content: 'npm says EACCES [F1]', mentionBot: true });
    await answered(discord, first, '[F1]');
    const second = discord.forumPost({ author: bob, title: 'Other question', content: 'how do I log in [F2]', mentionBot: true });
    await answered(discord, second, '[F2]');
    discord.userMessage({ author: ada, content: 'still failing [F3]', channelId: first });
    await answered(discord, first, '[F3]');
    discord.forumPost({ author: bob, title: 'Chatter', content: 'no one called the bot [F4]' });
    await sleep(500);
    expect(modelSaw(model, '[F4]')).toBe(false);
    expect(JSON.stringify(requestWith(model, '[F3]')!.body.messages)).toContain('[F1]');
    expect(JSON.stringify(requestWith(model, '[F2]')!.body.messages)).not.toContain('[F1]');
    // No thread is opened from a post: it is one.
    expect(discord.callsTo('POST', /\/threads$/)).toHaveLength(0);
    expect(postedIn(discord, discord.forumChannelId)).toHaveLength(0);
  }, 90_000);
});
