import { afterEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../../adapters/discord/index.js';
import { Gateway } from '../../src/gateway/index.js';
import { FakeDiscord, type DiscordCall, type FakeDiscordMessage, type FakeDiscordUser } from '../fakes/discord-server.js';
import { FakeAgent, testConfig, until } from '../gateway/helpers.js';

const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };
const bob: FakeDiscordUser = { id: '800000000000000002', username: 'bob' };
const mallory: FakeDiscordUser = { id: '800000000000000066', username: 'mallory' };

let discord: FakeDiscord | undefined;
let gateway: Gateway | undefined;

interface Setup {
  discord: FakeDiscord;
  gateway: Gateway;
  agent: FakeAgent;
  answers: boolean[];
}

/** The real gateway with the Discord adapter; each turn asks for approval of one command; alice and bob are allowed. */
async function setup(): Promise<Setup> {
  discord = await new FakeDiscord().listen();
  const answers: boolean[] = [];
  const agent = new FakeAgent(async (options) => {
    const approved = await options.requestApproval!({ command: 'chmod -R 777 .', reason: 'opens permissions to everyone' });
    answers.push(approved);
    return { text: approved ? 'ran it' : 'left it alone', status: 'completed' };
  });
  gateway = new Gateway({
    agent,
    config: testConfig({ approvals: { timeout: 300 } }),
    env: { DISCORD_ALLOWED_USERS: `${alice.id},${bob.id}` },
  });
  gateway.register(new DiscordAdapter({ token: discord.token, apiUrl: discord.apiUrl }));
  expect((await gateway.start()).started).toEqual(['discord']);
  return { discord, gateway, agent, answers };
}

afterEach(async () => {
  await gateway?.stop();
  await discord?.close();
  gateway = undefined;
  discord = undefined;
});

/** The message the bot sent with buttons (waits for it). */
async function buttonsMessage(s: Setup): Promise<FakeDiscordMessage> {
  await until(() => s.discord.messages.some((m) => (m.components?.length ?? 0) > 0), 'the approval buttons');
  return s.discord.messages.find((m) => (m.components?.length ?? 0) > 0)!;
}

/** alice mentions the bot in the channel; resolves with the thread the bot opened and its buttons message. */
async function askInThread(s: Setup): Promise<{ threadId: string; buttons: FakeDiscordMessage }> {
  const threadId = s.discord.userMessage({ author: alice, content: 'open up the folder', mentionBot: true });
  return { threadId, buttons: await buttonsMessage(s) };
}

const callbackOf = (s: Setup, press: { id: string; token: string }): Promise<DiscordCall> =>
  s.discord.waitForCall('POST', new RegExp(`^/interactions/${press.id}/${press.token}/callback$`));

const channelPost = (s: Setup, channelId: string, content: string): Promise<DiscordCall> =>
  s.discord.waitForCall('POST', new RegExp(`^/channels/${channelId}/messages$`), (c) => c.body?.content === content);

describe('Discord approval buttons through the gateway', () => {
  it('sends the request in the thread with an action row of Approve and Deny buttons', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    expect(buttons.channel_id).toBe(threadId);
    expect(buttons.content).toMatch(/Approval needed \(opens permissions to everyone\):\nchmod -R 777 \./);
    expect(buttons.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, custom_id: 'hermes:approve', label: 'Approve', style: 3 },
          { type: 2, custom_id: 'hermes:deny', label: 'Deny', style: 4 },
        ],
      },
    ]);
    const post = await s.discord.waitForCall('POST', new RegExp(`^/channels/${threadId}/messages$`), (c) => Array.isArray(c.body?.components));
    expect(post.body).toMatchObject({ allowed_mentions: { parse: [] } });
    // The request went out once, as buttons, not also as plain text.
    expect(s.discord.messages.filter((m) => m.content.includes('chmod'))).toHaveLength(1);
  });

  it('Approve by an allowed user is acknowledged without a new message (type 6) and resolves true in the thread', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    const press = s.discord.buttonPress({ user: bob, customId: 'hermes:approve', messageId: buttons.id });
    expect((await callbackOf(s, press)).body).toEqual({ type: 6 });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
    await channelPost(s, threadId, 'Approved.');
    await channelPost(s, threadId, 'ran it');
    expect(s.agent.turns).toHaveLength(1);
    // The request now says how it ended, and its buttons are gone.
    const settled = s.discord.messages.find((m) => m.id === buttons.id)!;
    expect(settled.content).toMatch(/chmod -R 777 \.\n\n✅ Approved by bob\.$/);
    expect(settled.components).toEqual([]);
  });

  it('Deny resolves the approval false', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    const press = s.discord.buttonPress({ user: alice, customId: 'hermes:deny', messageId: buttons.id });
    expect((await callbackOf(s, press)).body).toEqual({ type: 6 });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
    await channelPost(s, threadId, 'Denied.');
    await channelPost(s, threadId, 'left it alone');
    const settled = s.discord.messages.find((m) => m.id === buttons.id)!;
    expect(settled.content).toMatch(/\n\n❌ Denied by alice\.$/);
    expect(settled.components).toEqual([]);
  });

  it('refuses a press by a user who is not allowed like any message of theirs; the request keeps waiting', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    const intruder = s.discord.buttonPress({ user: mallory, customId: 'hermes:approve', messageId: buttons.id });
    expect((await callbackOf(s, intruder)).body).toEqual({ type: 6 });
    const refusal = await s.discord.waitForCall('POST', new RegExp(`^/channels/${threadId}/messages$`), (c) =>
      String(c.body?.content).includes('not allowed'),
    );
    expect(String(refusal.body?.content)).toContain(mallory.id);
    expect(s.answers).toEqual([]);
    expect(s.gateway.threadState(`discord:${s.discord.guildId}:${threadId}`).running).toBe(true);
    s.discord.buttonPress({ user: alice, customId: 'hermes:deny', messageId: buttons.id });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
  });

  it('in a DM, sends the buttons to the DM and a press answers the DM\'s session', async () => {
    const s = await setup();
    const dmChannel = '940000000000000011';
    s.discord.userMessage({ author: alice, content: 'open up the folder', channelId: dmChannel, dm: true });
    const buttons = await buttonsMessage(s);
    expect(buttons.channel_id).toBe(dmChannel);
    const press = s.discord.buttonPress({ user: alice, customId: 'hermes:approve', messageId: buttons.id, dm: true });
    expect((await callbackOf(s, press)).body).toEqual({ type: 6 });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
    await channelPost(s, dmChannel, 'ran it');
  });

  it('after /ask, puts the buttons on the deferred answer and a press in that channel approves', async () => {
    const s = await setup();
    await s.discord.waitForCall('PUT', /\/commands$/);
    const ask = s.discord.slashCommand({ user: alice, name: 'ask', prompt: 'open up the folder' });
    const buttons = await buttonsMessage(s);
    expect(buttons).toMatchObject({ via: 'interaction', interactionToken: ask.token, channel_id: s.discord.channelId });
    const press = s.discord.buttonPress({ user: alice, customId: 'hermes:approve', messageId: buttons.id });
    expect((await callbackOf(s, press)).body).toEqual({ type: 6 });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
    // The deferred answer is edited through the interaction's webhook, its buttons removed too.
    await until(() => s.discord.messages.find((m) => m.id === buttons.id)!.content.includes('Approved by'), 'the settled request');
    expect(s.discord.messages.find((m) => m.id === buttons.id)!.components).toEqual([]);
  });

  it('leaves presses of buttons it does not own unanswered and undispatched', async () => {
    const s = await setup();
    const { buttons } = await askInThread(s);
    const foreign = s.discord.buttonPress({ user: alice, customId: 'someone-elses:button', messageId: buttons.id });
    s.discord.buttonPress({ user: alice, customId: 'hermes:deny', messageId: buttons.id });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
    expect(s.discord.callsTo('POST', new RegExp(`^/interactions/${foreign.id}/`))).toHaveLength(0);
  });
});
