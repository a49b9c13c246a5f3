import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DiscordAdapter, type DiscordReplyTarget } from '../../adapters/discord/index.js';
import { FakeDiscord, type FakeDiscordUser } from '../fakes/discord-server.js';
import { recordingHandler } from '../fakes/slack-recorder.js';
import { removeHome, startStreamGateway, words, type StreamGateway } from '../fakes/stream-harness.js';

/*
 * Discord through the real gateway, agent and discord.js against the fake Discord, which
 * keeps message edits to about 5 per 5 s per channel as Discord does (X-RateLimit-* headers,
 * 429 with retry_after past them): a streamed answer is sent once and edited in place; the
 * message a turn answers gets 👀, then ✅ or ❌; every gateway command is a slash command.
 */
const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };
/** Discord's edit bucket per channel. */
const DISCORD_EDIT_RATE = { limit: 5, windowMs: 5000 };

let discord: FakeDiscord | undefined;
let gw: StreamGateway | undefined;
const extra: DiscordAdapter[] = [];

beforeAll(async () => {
  await Promise.all([import('../../src/agent/index.js'), import('../../adapters/index.js')]);
}, 120_000);

afterEach(async () => {
  for (const adapter of extra.splice(0)) await adapter.stop();
  await gw?.stop();
  if (gw) removeHome(gw.home);
  await discord?.close();
  gw = discord = undefined;
});

async function start(options: Parameters<typeof startStreamGateway>[3] = {}): Promise<FakeDiscord> {
  discord = await new FakeDiscord().listen();
  discord.editRateLimit = DISCORD_EDIT_RATE;
  const env: NodeJS.ProcessEnv = { ...process.env, DISCORD_BOT_TOKEN: discord.token, DISCORD_ALLOWED_USERS: alice.id };
  delete env.GATEWAY_ALLOW_ALL_USERS;
  gw = await startStreamGateway('discord', { api_url: discord.apiUrl }, env, options);
  await discord.waitForCall('PUT', /\/commands$/);
  return discord;
}

/** The bot's messages in a channel or thread, oldest first. */
const botMessagesIn = (fake: FakeDiscord, channelId: string) => fake.messages.filter((m) => m.channel_id === channelId && m.via === 'channel');

describe('Discord: streamed replies, reactions and slash commands', () => {
  it('a 400-word answer streams into the parts it needs, each sent once and edited in place within the edit rate, ending with the model text', async () => {
    const answer = words(400, 'discord');
    const fake = await start({ replies: [{ text: answer, chunkChars: 12, paceMs: 8 }] });
    const thread = fake.userMessage({ author: alice, content: 'tell me a long story', mentionBot: true });
    await fake.waitForCall('POST', new RegExp(`^/channels/${thread}/messages$`));
    await gw!.running.gateway.idle();
    const parts = botMessagesIn(fake, thread);
    // 400 words are more than Discord's 2,000 characters: two parts, each one message.
    expect(answer.length).toBeGreaterThan(2000);
    expect(parts.length).toBe(Math.ceil(answer.length / 2000));
    for (const part of parts) expect(part.content.length).toBeLessThanOrEqual(2000);
    expect(parts.map((part) => part.content).join('\n')).toBe(answer);
    // Each part was posted once; everything else was an edit of it.
    expect(fake.callsTo('POST', new RegExp(`^/channels/${thread}/messages$`))).toHaveLength(parts.length);
    const edits = fake.edits.filter((edit) => edit.bucket === `channel:${thread}`);
    expect(edits.length).toBeGreaterThan(1);
    expect(new Set(edits.map((edit) => edit.messageId))).toEqual(new Set(parts.map((part) => part.id)));
    // Never faster than the bucket: the fake refused nothing, and each message was edited at most once a second.
    expect(fake.rateLimited).toBe(0);
    for (const part of parts) {
      const times = edits.filter((edit) => edit.messageId === part.id).map((edit) => edit.at);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(990);
    }
  }, 90_000);

  it('the fake enforces the edit bucket: a client that does not know it gets 429 with retry_after, and discord.js waits it out and lands the edit', async () => {
    const fake = await start();
    const thread = fake.userMessage({ author: alice, content: 'hi', mentionBot: true });
    await fake.waitForCall('POST', new RegExp(`^/channels/${thread}/messages$`));
    await gw!.running.gateway.idle();
    const [message] = botMessagesIn(fake, thread);
    // Two clients share the channel's bucket; neither knows what the other spent.
    const rec = recordingHandler<DiscordReplyTarget>();
    const clients = [new DiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }), new DiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl })];
    extra.push(...clients);
    const controller = new AbortController();
    for (const client of clients) await client.start(rec.handler, controller.signal);
    const target: DiscordReplyTarget = { threadKey: `discord:${fake.guildId}:${thread}`, channelId: thread };
    const texts = Array.from({ length: 8 }, (_, i) => `edit ${i}`);
    await Promise.all(clients.map((client, c) => (async () => {
      for (const text of texts.filter((_, i) => i % 2 === c)) await client.edit(target, message.id, text);
    })()));
    expect(fake.rateLimited).toBeGreaterThan(0);
    const landed = fake.edits.filter((edit) => edit.messageId === message.id).length;
    // Every edit landed once the bucket allowed it (the answer's own edits came first).
    expect(fake.callsTo('PATCH', new RegExp(`/messages/${message.id}$`)).length).toBe(landed + fake.rateLimited);
    expect(['edit 6', 'edit 7']).toContain(fake.messages.find((m) => m.id === message.id)?.content);
  }, 90_000);

  it('with display.reactions the message a turn answers gets 👀 while it runs, then ✅, or ❌ when the turn fails', async () => {
    const fake = await start({ replies: [{ text: 'all good' }, { status: 400, message: 'the model refused' }], overrides: { display: { reactions: true } } });
    const first = fake.userMessage({ author: alice, content: 'works', mentionBot: true });
    await fake.waitForCall('PUT', new RegExp(`/messages/${first}/reactions/✅/@me$`));
    // The mention is in the channel; its thread (same id) is where the answer went.
    expect(fake.reactionLog.filter((r) => r.messageId === first)).toEqual([
      { op: 'put', channelId: fake.channelId, messageId: first, emoji: '👀' },
      { op: 'delete', channelId: fake.channelId, messageId: first, emoji: '👀' },
      { op: 'put', channelId: fake.channelId, messageId: first, emoji: '✅' },
    ]);
    expect(fake.reactionsOn(fake.channelId, first)).toEqual(['✅']);

    const second = fake.userMessage({ author: alice, content: 'this one fails', channelId: first });
    await fake.waitForCall('PUT', new RegExp(`/messages/${second}/reactions/❌/@me$`));
    expect(fake.reactionsOn(first, second)).toEqual(['❌']);
  }, 90_000);

  it('the session commands answer as slash commands: /ask, /usage, /model, /verbose mode:all, /undo, /retry, /compress', async () => {
    const fake = await start({ fallback: { text: 'an answer' }, overrides: { model: { stream: false } } });
    const answerOf = async (token: string, includes: string) => {
      await fake.waitForCall('PATCH', new RegExp(`^/webhooks/\\d+/${token}/messages/`), (call) => String(call.body?.content).includes(includes));
      return fake.messages.filter((m) => m.interactionToken === token).map((m) => m.content).join('\n');
    };
    const ask = fake.slashCommand({ user: alice, name: 'ask', prompt: 'first question' });
    await answerOf(ask.token, 'an answer');
    await gw!.running.gateway.idle();
    expect(await answerOf(fake.slashCommand({ user: alice, name: 'usage' }).token, 'Last turn')).toMatch(/in \+ \d+ out tokens/);
    expect(await answerOf(fake.slashCommand({ user: alice, name: 'model' }).token, 'fake-model')).toContain('Model: fake-model');
    expect(await answerOf(fake.slashCommand({ user: alice, name: 'verbose', options: { mode: 'all' } }).token, 'Tool progress')).toContain(': all');
    expect(await answerOf(fake.slashCommand({ user: alice, name: 'undo' }).token, 'Dropped the last turn')).toContain('first question');
    const before = gw!.model.requests.length;
    const retry = fake.slashCommand({ user: alice, name: 'retry' });
    await answerOf(retry.token, 'Nothing to retry');
    expect(gw!.model.requests.length).toBe(before);
    await answerOf(fake.slashCommand({ user: alice, name: 'ask', prompt: 'second question' }).token, 'an answer');
    await gw!.running.gateway.idle();
    const again = fake.slashCommand({ user: alice, name: 'retry' });
    await answerOf(again.token, 'an answer');
    expect(JSON.stringify(gw!.model.requests.at(-1)?.body.messages)).toContain('second question');
    const compress = fake.slashCommand({ user: alice, name: 'compress' });
    await fake.waitForCall('PATCH', new RegExp(`^/webhooks/\\d+/${compress.token}/messages/`));
    expect(fake.messages.find((m) => m.interactionToken === compress.token)?.content.length).toBeGreaterThan(0);
  }, 90_000);
});
