import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayIntentBits } from 'discord.js';
import { DiscordAdapter, DiscordAdapterError, DISCORD_COMMANDS, type DiscordReplyTarget } from '../../adapters/discord/index.js';
import { FakeDiscord, type FakeDiscordUser } from '../fakes/discord-server.js';
import { recordingHandler, type RecordingHandler } from '../fakes/slack-recorder.js';
import { COMMANDS } from '../../src/gateway/index.js';

const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };
const otherBot: FakeDiscordUser = { id: '800000000000000009', username: 'robot', bot: true };

let discord: FakeDiscord;
let adapter: DiscordAdapter;
let rec: RecordingHandler<DiscordReplyTarget>;
let controller: AbortController;

beforeEach(async () => {
  // A short heartbeat interval so the test sees heartbeats and their ACKs.
  discord = await new FakeDiscord(300).listen();
  rec = recordingHandler<DiscordReplyTarget>();
  controller = new AbortController();
  adapter = new DiscordAdapter({ token: discord.token, apiUrl: discord.apiUrl });
  await adapter.start(rec.handler, controller.signal);
});

afterEach(async () => {
  controller.abort();
  await adapter.stop();
  await discord.close();
});

describe('Discord adapter against a fake REST API and Gateway', () => {
  it('finds the Gateway through GET /gateway/bot and identifies with the intents it needs', async () => {
    expect(discord.callsTo('GET', /^\/gateway\/bot$/)).toHaveLength(1);
    expect(discord.identifies).toHaveLength(1);
    const intents = Number(discord.identifies[0].intents);
    for (const bit of [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages]) {
      expect(intents & bit).toBe(bit);
    }
    expect(discord.identifies[0].token).toBe(discord.token);
  });

  it('keeps the connection alive with heartbeats, also when the Gateway asks for one', async () => {
    const before = discord.heartbeats;
    discord.requestHeartbeat();
    await new Promise((resolve) => discord.once('heartbeat', resolve));
    expect(discord.heartbeats).toBeGreaterThan(before);
  });

  it('registers /ask and every gateway chat command at start, with the options they take', async () => {
    const put = await discord.waitForCall('PUT', new RegExp(`^/applications/${discord.applicationId}/commands$`));
    const sent = put.body as unknown as Array<{ name: string; description: string; options?: Array<{ name: string; type: number; required?: boolean; choices?: unknown[] }> }>;
    expect(sent.map((c) => c.name)).toEqual(['ask', ...COMMANDS.map((command) => command.name)]);
    expect(DISCORD_COMMANDS[0].options?.[0]).toMatchObject({ name: 'prompt', required: true });
    for (const command of sent) expect(command.description.length).toBeGreaterThan(0);
    const option = (name: string) => sent.find((c) => c.name === name)?.options?.[0];
    expect(option('model')).toMatchObject({ name: 'name', type: 3, required: false });
    expect(option('verbose')).toMatchObject({ name: 'mode', type: 3, choices: ['off', 'new', 'all'].map((v) => ({ name: v, value: v })) });
    expect(option('approve')).toMatchObject({ name: 'scope', type: 3 });
    for (const name of ['usage', 'retry', 'undo', 'compress', 'stop', 'new']) expect(option(name)).toBeUndefined();
  });

  it('opens a thread from a mentioning message; the thread is the session', async () => {
    const id = discord.userMessage({ author: alice, content: 'sum 1..10 please', mentionBot: true });
    const message = await rec.nth(1);
    const start = await discord.waitForCall('POST', new RegExp(`^/channels/${discord.channelId}/messages/${id}/threads$`));
    expect(start.body).toMatchObject({ name: 'sum 1..10 please', auto_archive_duration: 1440 });
    expect(message).toMatchObject({
      platform: 'discord',
      threadKey: `discord:${discord.guildId}:${id}`,
      chat: { id, type: 'thread' },
      user: { id: alice.id, name: 'alice' },
      text: 'sum 1..10 please',
      messageId: id,
      replyTo: { channelId: id },
    });
  });

  it('answers in the thread, edits in place, and never lets the text ping anyone', async () => {
    discord.userMessage({ author: alice, content: 'hi', mentionBot: true });
    const message = await rec.nth(1);
    const { messageId } = await adapter.send(message.replyTo, 'working… @everyone');
    const post = await discord.waitForCall('POST', new RegExp(`^/channels/${message.chat.id}/messages$`));
    expect(post.body).toMatchObject({ content: 'working… @everyone', allowed_mentions: { parse: [] } });
    await adapter.edit(message.replyTo, messageId, 'done');
    const patch = await discord.waitForCall('PATCH', new RegExp(`^/channels/${message.chat.id}/messages/${messageId}$`));
    expect(patch.body).toMatchObject({ content: 'done' });
    await adapter.presence.typing(message.replyTo);
    await discord.waitForCall('POST', new RegExp(`^/channels/${message.chat.id}/typing$`));
  });

  it('reports the facts the group policy needs: a bot thread needs no mention, channel messages and bots come with theirs', async () => {
    discord.userMessage({ author: alice, content: 'start', mentionBot: true });
    const first = await rec.nth(1);
    // The thread opened from the message is in the channel (`allowed_chats` may name it).
    expect(first.group).toEqual({ mentioned: true, repliedToBot: false, parentId: discord.channelId });
    discord.userMessage({ author: alice, content: 'no mention in the channel' });
    const inChannel = await rec.nth(2);
    expect(inChannel).toMatchObject({ threadKey: `discord:${discord.guildId}:${discord.channelId}`, chat: { type: 'channel' }, group: { mentioned: false, repliedToBot: false } });
    discord.userMessage({ author: otherBot, content: 'bot chatter', channelId: first.chat.id });
    const fromBot = await rec.nth(3);
    expect(fromBot.user).toMatchObject({ id: otherBot.id, isBot: true });
    discord.userMessage({ author: alice, content: 'follow-up', channelId: first.chat.id });
    const followUp = await rec.nth(4);
    expect(followUp).toMatchObject({ threadKey: first.threadKey, text: 'follow-up', group: { mentioned: false, repliedToBot: true } });
    // Only a person's mention in a channel opens a thread.
    expect(discord.callsTo('POST', /\/threads$/)).toHaveLength(1);
  });

  it('makes a DM a session of its own and replies in the DM channel', async () => {
    const dmChannel = '940000000000000001';
    discord.userMessage({ author: alice, content: 'private question', channelId: dmChannel, dm: true });
    const message = await rec.nth(1);
    expect(message).toMatchObject({ threadKey: `discord:dm:${dmChannel}`, chat: { id: dmChannel, type: 'dm' }, text: 'private question' });
    await adapter.send(message.replyTo, 'private answer');
    await discord.waitForCall('POST', new RegExp(`^/channels/${dmChannel}/messages$`), (c) => c.body?.content === 'private answer');
  });

  it('defers a slash command at once, then answers by editing the reply and following up', async () => {
    await discord.waitForCall('PUT', /\/commands$/);
    const { id, token } = discord.slashCommand({ user: alice, name: 'ask', prompt: 'what time is it?' });
    const message = await rec.nth(1);
    const callback = await discord.waitForCall('POST', new RegExp(`^/interactions/${id}/${token}/callback$`));
    expect(callback.body).toMatchObject({ type: 5 });
    expect(message).toMatchObject({
      threadKey: `discord:${discord.guildId}:${discord.channelId}`,
      chat: { id: discord.channelId, type: 'channel' },
      text: 'what time is it?',
      replyTo: { interactionId: id },
    });
    const first = await adapter.send(message.replyTo, 'part 1');
    await discord.waitForCall('PATCH', new RegExp(`^/webhooks/${discord.applicationId}/${token}/messages/@original$`));
    const second = await adapter.send(message.replyTo, 'part 2');
    await discord.waitForCall('POST', new RegExp(`^/webhooks/${discord.applicationId}/${token}$`));
    expect(second.messageId).not.toBe(first.messageId);
    await adapter.edit(message.replyTo, second.messageId, 'part 2, edited');
    await discord.waitForCall('PATCH', new RegExp(`^/webhooks/${discord.applicationId}/${token}/messages/${second.messageId}$`));
    expect(discord.messages.filter((m) => m.via === 'interaction').map((m) => m.content)).toEqual(['part 1', 'part 2, edited']);
  });

  it('hands /new, /stop, /status and /help to the gateway as chat commands of the channel', async () => {
    await discord.waitForCall('PUT', /\/commands$/);
    for (const name of ['new', 'stop', 'status', 'help']) discord.slashCommand({ user: alice, name });
    await rec.nth(4);
    expect(rec.messages.map((m) => m.text).sort()).toEqual(['/help', '/new', '/status', '/stop']);
    expect(new Set(rec.messages.map((m) => m.threadKey))).toEqual(new Set([`discord:${discord.guildId}:${discord.channelId}`]));
  });

  it('hands a command with its option to the gateway as typed: /model name:x is "/model x", /verbose mode:all is "/verbose all"', async () => {
    await discord.waitForCall('PUT', /\/commands$/);
    discord.slashCommand({ user: alice, name: 'model', options: { name: 'gpt-test' } });
    await rec.nth(1);
    discord.slashCommand({ user: alice, name: 'verbose', options: { mode: 'all' } });
    await rec.nth(2);
    discord.slashCommand({ user: alice, name: 'usage' });
    await rec.nth(3);
    expect(rec.messages.map((m) => m.text)).toEqual(['/model gpt-test', '/verbose all', '/usage']);
  });

  it('fails to start with a DiscordAdapterError naming DISCORD_BOT_TOKEN when the token is refused', async () => {
    const wrong = new DiscordAdapter({ token: 'not.the.token', apiUrl: discord.apiUrl });
    const failure = await wrong.start(rec.handler, controller.signal).catch((error: unknown) => error);
    await wrong.stop();
    expect(failure).toBeInstanceOf(DiscordAdapterError);
    expect((failure as Error).message).toMatch(/DISCORD_BOT_TOKEN/);
  });

  it('reconnects when the Gateway asks (op 7), identifies again after the resume is refused, and keeps delivering', async () => {
    discord.askToReconnect();
    await new Promise<void>((resolve) => {
      const check = (): void => (discord.identifies.length === 2 && discord.sessionCount === 1 ? resolve() : void setTimeout(check, 20));
      check();
    });
    discord.userMessage({ author: alice, content: 'still there?', channelId: '940000000000000002', dm: true });
    expect((await rec.nth(1)).text).toBe('still there?');
  });

  it('after a restart, continues a thread it opened earlier without a mention (the thread comes with GUILD_CREATE)', async () => {
    const thread = discord.userMessage({ author: alice, content: 'first', mentionBot: true });
    await rec.nth(1);
    await adapter.stop();
    adapter = new DiscordAdapter({ token: discord.token, apiUrl: discord.apiUrl });
    await adapter.start(rec.handler, controller.signal);
    discord.userMessage({ author: alice, content: 'second, after the restart', channelId: thread });
    const again = await rec.nth(2);
    expect(again.threadKey).toBe(`discord:${discord.guildId}:${thread}`);
  });

  it('answers /ask in a DM through the interaction, keyed to the DM channel', async () => {
    await discord.waitForCall('PUT', /\/commands$/);
    const dmChannel = '940000000000000003';
    const { token } = discord.slashCommand({ user: alice, name: 'ask', prompt: 'in private', channelId: dmChannel, dm: true });
    const message = await rec.nth(1);
    expect(message).toMatchObject({ threadKey: `discord:dm:${dmChannel}`, chat: { id: dmChannel, type: 'dm' }, text: 'in private' });
    await adapter.send(message.replyTo, 'private answer');
    await discord.waitForCall('PATCH', new RegExp(`^/webhooks/${discord.applicationId}/${token}/messages/@original$`));
  });
});
