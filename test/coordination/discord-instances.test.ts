import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/environments/index.js';
import { FakeDiscord, type DiscordCall, type FakeDiscordUser } from '../fakes/discord-server.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { release, toolResultsFor, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { until } from './helpers.js';
import { instancesMissing, startPlatformWorld, type PlatformWorld } from './platform-world.js';

/*
 * Three `hermes gateway` processes on one HERMES_HOME and one Redis, each connected to the fake
 * Discord's Gateway as the same bot: every event reaches all three, as with Discord itself.
 */
const missing = instancesMissing('the Discord several-instances tests');

const KEY_VAR = 'HERMES_DISCORD_INSTANCES_KEY';
const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };

describe.runIf(!missing)('three hermes gateway processes on one Discord bot and one Redis', () => {
  let world: PlatformWorld<FakeDiscord> | undefined;
  let discord: FakeDiscord;
  let model: FakeOpenAI;
  let home: string;

  /** The model requests whose last message is the user's text with `tag`. */
  const asked = (tag: string) =>
    model.requests.filter((request) => {
      const last = request.body.messages[request.body.messages.length - 1];
      return last.role === 'user' && String(last.content).includes(tag);
    });
  const postsIn = (channelId: string, text: string) =>
    discord.calls.filter((call: DiscordCall) => call.method === 'POST' && call.path === `/channels/${channelId}/messages` && String(call.body?.content).includes(text));
  const threadsFrom = (messageId: string) => discord.callsTo('POST', new RegExp(`^/channels/\\d+/messages/${messageId}/threads$`));

  beforeAll(async () => {
    world = await startPlatformWorld({ tag: 'discord-instances', keyVar: KEY_VAR, platform: 'discord', startFake: () => new FakeDiscord().listen(), settings: (fake) => ({ api_url: fake.apiUrl }) });
    ({ home, model, fake: discord } = world);
    for (const name of ['A', 'B', 'C']) await world.start(name, { DISCORD_BOT_TOKEN: discord.token, DISCORD_ALLOWED_USERS: alice.id }, 'started discord');
    await until(() => discord.sessionCount === 3, 'three Gateway sessions', 30_000);
    await until(() => discord.callsTo('PUT', /\/commands$/).length === 3, 'the slash commands of all three', 30_000);
  }, 180_000);

  afterAll(() => world?.close(), 60_000);

  it('a mention every instance receives opens one thread, makes one model request and is answered once', async () => {
    const first = discord.userMessage({ author: alice, content: 'just once [ONCE]', mentionBot: true });
    await until(() => postsIn(first, 'echo: just once [ONCE]').length > 0, 'the answer to the mention', 60_000);
    // A later message in the thread is answered after anything the copies of the first started there.
    discord.userMessage({ author: alice, content: 'and then [ONCE2]', channelId: first });
    await until(() => postsIn(first, 'echo: and then [ONCE2]').length > 0, 'the answer to the later message', 60_000);
    expect(threadsFrom(first)).toHaveLength(1);
    expect(asked('[ONCE]')).toHaveLength(1);
    expect(asked('[ONCE2]')).toHaveLength(1);
    expect(postsIn(first, 'echo: just once [ONCE]')).toHaveLength(1);
    expect(postsIn(first, 'echo: and then [ONCE2]')).toHaveLength(1);
  }, 120_000);

  it('a slash command every instance receives is acknowledged once and answered once through its interaction', async () => {
    const ask = discord.slashCommand({ user: alice, name: 'ask', prompt: 'one answer [SC]' });
    const answers = () =>
      discord.callsTo('PATCH', new RegExp(`^/webhooks/\\d+/${ask.token}/messages/@original$`)).filter((call) => String(call.body?.content).includes('echo: one answer [SC]'));
    await until(() => answers().length > 0, 'the answer to /ask', 60_000);
    // A later command in the channel runs after anything the copies of the first started.
    const later = discord.slashCommand({ user: alice, name: 'ask', prompt: 'later [SC2]' });
    await until(
      () => discord.callsTo('PATCH', new RegExp(`^/webhooks/\\d+/${later.token}/messages/@original$`)).some((call) => String(call.body?.content).includes('[SC2]')),
      'the answer to the later /ask',
      60_000,
    );
    const callbacks = discord.callsTo('POST', new RegExp(`^/interactions/${ask.id}/${ask.token}/callback$`));
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0].body?.type).toBe(5);
    expect(asked('[SC]')).toHaveLength(1);
    expect(answers()).toHaveLength(1);
    expect(discord.calls.filter((call) => String(call.body?.content ?? '').includes('echo: one answer [SC]'))).toHaveLength(1);
  }, 120_000);

  it('a slash command taken by any instance while a turn runs in its channel elsewhere is answered through its own interaction where that turn runs', async () => {
    // In a DM channel of its own, so no earlier test's turn is in the way.
    const dm = '940000000000000009';
    const first = discord.slashCommand({ user: alice, name: 'ask', prompt: 'wait here [WAIT:I]', channelId: dm, dm: true });
    await waitForPgid(home, 'I');
    // Whichever instance claims the second, it runs where the channel's turn runs (queued or interrupting it there).
    const second = discord.slashCommand({ user: alice, name: 'ask', prompt: 'second [SC3]', channelId: dm, dm: true });
    const original = (token: string) => discord.callsTo('PATCH', new RegExp(`^/webhooks/\\d+/${token}/messages/@original$`));
    await until(() => discord.callsTo('POST', new RegExp(`^/interactions/${second.id}/`)).length > 0, 'the second command acknowledged', 60_000);
    release(home, 'I');
    await until(() => original(second.token).some((call) => String(call.body?.content).includes('second [SC3]')), 'the answer to the second command', 60_000);
    expect(discord.callsTo('POST', new RegExp(`^/interactions/${first.id}/`))).toHaveLength(1);
    expect(discord.callsTo('POST', new RegExp(`^/interactions/${second.id}/`))).toHaveLength(1);
    expect(asked('[SC3]')).toHaveLength(1);
    // Not posted to the channel instead, where the deferred answer would stay "thinking…".
    expect(postsIn(dm, 'second [SC3]')).toHaveLength(0);
  }, 120_000);

  it('a message in a thread whose script runs on one instance, received by all, kills that script and is answered once', async () => {
    const thread = discord.userMessage({ author: alice, content: 'start the slow job [SLOW:D]', mentionBot: true });
    const pgid = await waitForPgid(home, 'D');
    expect(groupAlive(pgid)).toBe(true);
    discord.userMessage({ author: alice, content: 'never mind [D2]', channelId: thread });
    await until(() => postsIn(thread, 'never mind [D2]').length > 0, 'the answer to the interrupting message', 60_000);
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
    expect(toolResultsFor(model.requests, '[D2]').some((content) => content.includes('[execution interrupted — user sent a new message]'))).toBe(true);
    expect(asked('[D2]')).toHaveLength(1);
    expect(postsIn(thread, 'never mind [D2]')).toHaveLength(1);
  }, 120_000);
});
