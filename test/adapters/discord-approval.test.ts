import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DiscordAdapter } from '../../adapters/discord/index.js';
import { Gateway, approvalQueueFor } from '../../src/gateway/index.js';
import { FakeDiscord, type DiscordCall, type FakeDiscordMessage, type FakeDiscordUser } from '../fakes/discord-server.js';
import { FakeAgent, testConfig, until } from '../gateway/helpers.js';
import { tempDir } from '../helpers/tool-context.js';

const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };
const bob: FakeDiscordUser = { id: '800000000000000002', username: 'bob' };
const mallory: FakeDiscordUser = { id: '800000000000000066', username: 'mallory' };
const root: FakeDiscordUser = { id: '800000000000000009', username: 'root' };

let discord: FakeDiscord | undefined;
let gateway: Gateway | undefined;

interface Setup {
  discord: FakeDiscord;
  gateway: Gateway;
  agent: FakeAgent;
  answers: boolean[];
  /** Stops the gateway and starts a new one (a new adapter) on the same HERMES_HOME rules file. */
  restart(): Promise<void>;
}

/**
 * The real gateway with the Discord adapter; each turn asks for approval of one command.
 * alice, bob and root are allowed; root is an approvals admin.
 */
async function setup(): Promise<Setup> {
  const fake = (discord = await new FakeDiscord().listen());
  const answers: boolean[] = [];
  const rulesFile = join(tempDir('hermes-discord-approvals-'), 'approvals.yaml');
  const agent = new FakeAgent(async (options) => {
    const approved = await options.requestApproval!({ command: 'chmod -R 777 .', reason: 'opens permissions to everyone' });
    answers.push(approved);
    return { text: approved ? 'ran it' : 'left it alone', status: 'completed' };
  });
  const s = { discord: fake, agent, answers } as Setup;
  const start = async () => {
    const config = testConfig({ approvals: { timeout: 300, admins: { discord: [root.id] } } });
    gateway = new Gateway({
      agent,
      config,
      env: { DISCORD_ALLOWED_USERS: `${alice.id},${bob.id},${root.id}` },
      approvals: approvalQueueFor(config, { rulesFile }),
    });
    gateway.register(new DiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }));
    expect((await gateway.start()).started).toEqual(['discord']);
    s.gateway = gateway;
  };
  await start();
  s.restart = async () => {
    await gateway?.stop();
    await start();
  };
  return s;
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

/** The custom_id of one button under a request the bot sent. */
function dataOf(buttons: FakeDiscordMessage, choice: 'once' | 'session' | 'always' | 'deny'): string {
  const ids = JSON.stringify(buttons.components ?? []).match(/hermes:approval:[0-9a-f]{16}:[a-z]+/g) ?? [];
  return ids.find((id) => id.endsWith(`:${choice}`)) ?? `no ${choice} button`;
}

describe('Discord approval buttons through the gateway', () => {
  it('sends the request in the thread with an action row of Approve and Deny buttons', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    expect(buttons.channel_id).toBe(threadId);
    expect(buttons.content).toMatch(/Approval needed \(opens permissions to everyone\):\n```\nchmod -R 777 \.\n```\n\nAsked by alice; only alice or an admin can answer\./);
    expect(buttons.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, custom_id: expect.stringMatching(/^hermes:approval:[0-9a-f]{16}:once$/), label: 'Approve once', style: 3 },
          { type: 2, custom_id: expect.stringMatching(/^hermes:approval:[0-9a-f]{16}:session$/), label: 'This session', style: 1 },
          { type: 2, custom_id: expect.stringMatching(/^hermes:approval:[0-9a-f]{16}:always$/), label: 'Always', style: 2 },
          { type: 2, custom_id: expect.stringMatching(/^hermes:approval:[0-9a-f]{16}:deny$/), label: 'Deny', style: 4 },
        ],
      },
    ]);
    const post = await s.discord.waitForCall('POST', new RegExp(`^/channels/${threadId}/messages$`), (c) => Array.isArray(c.body?.components));
    expect(post.body).toMatchObject({ allowed_mentions: { parse: [] } });
    // The request went out once, as buttons, not also as plain text.
    expect(s.discord.messages.filter((m) => m.content.includes('chmod'))).toHaveLength(1);
  });

  it('Approve once by the requester is acknowledged without a new message (type 6) and resolves true in the thread', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    const press = s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'once'), messageId: buttons.id });
    expect((await callbackOf(s, press)).body).toEqual({ type: 6 });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
    await channelPost(s, threadId, 'Approved.');
    await channelPost(s, threadId, 'ran it');
    expect(s.agent.turns).toHaveLength(1);
    // The request now says how it ended, and its buttons are gone.
    const settled = s.discord.messages.find((m) => m.id === buttons.id)!;
    expect(settled.content).toMatch(/chmod -R 777 \.\n```\n\n✅ Approved by alice\.$/);
    expect(settled.components).toEqual([]);
  });

  it('Deny resolves the approval false', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    const press = s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'deny'), messageId: buttons.id });
    expect((await callbackOf(s, press)).body).toEqual({ type: 6 });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
    await channelPost(s, threadId, 'Denied.');
    await channelPost(s, threadId, 'left it alone');
    const settled = s.discord.messages.find((m) => m.id === buttons.id)!;
    expect(settled.content).toMatch(/\n\n❌ Denied by alice\.$/);
    expect(settled.components).toEqual([]);
  });

  it('bob, allowed but not the requester, cannot answer alice\'s request; root, an admin, can', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    s.discord.buttonPress({ user: bob, customId: dataOf(buttons, 'always'), messageId: buttons.id });
    await channelPost(s, threadId, 'Only alice or an admin can answer this request.');
    s.discord.userMessage({ author: bob, content: '/approve', channelId: threadId });
    await until(() => s.discord.callsTo('POST', new RegExp(`^/channels/${threadId}/messages$`)).filter((c) => c.body?.content === 'Only alice or an admin can answer this request.').length === 2, 'two refusals');
    expect(s.answers).toEqual([]);
    expect(s.discord.messages.find((m) => m.id === buttons.id)!.components).toHaveLength(1);
    s.discord.buttonPress({ user: root, customId: dataOf(buttons, 'once'), messageId: buttons.id });
    await until(() => s.answers.length === 1, 'the admin\'s answer');
    expect(s.answers).toEqual([true]);
    await until(() => /✅ Approved by root\.$/.test(s.discord.messages.find((m) => m.id === buttons.id)!.content), 'the settled request');
  });

  it('This session lets the same command run again in the thread without buttons', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'session'), messageId: buttons.id });
    await channelPost(s, threadId, 'ran it');
    expect(s.discord.messages.find((m) => m.id === buttons.id)!.content).toMatch(/✅ Approved by alice for this session\.$/);
    s.discord.userMessage({ author: alice, content: 'once more', channelId: threadId });
    await until(() => s.answers.length === 2, 'the second turn');
    expect(s.answers).toEqual([true, true]);
    expect(s.discord.messages.filter((m) => m.content.startsWith('⚠️ Approval needed'))).toHaveLength(1);
  });

  it('Always keeps a rule that holds after a restart: a new question runs without asking', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'always'), messageId: buttons.id });
    await channelPost(s, threadId, 'Approved always: kept as rule 1 (/status lists the rules; /approve forget 1 removes it).');
    await until(() => s.answers.length === 1, 'the first turn');
    await s.restart();
    s.discord.userMessage({ author: bob, content: 'open up the folder', mentionBot: true });
    await until(() => s.answers.length === 2, 'the turn after the restart');
    expect(s.answers).toEqual([true, true]);
    expect(s.discord.messages.filter((m) => m.content.startsWith('⚠️ Approval needed'))).toHaveLength(1);
  });

  it('a refused buttons message ends that request at once, and the next request is answerable at once', async () => {
    const s = await setup();
    s.discord.refuseNext('POST', /^\/channels\/\d+\/messages$/, 403, { message: 'Missing Permissions', code: 50013 }, (body) => Array.isArray(body.components));
    const threadId = s.discord.userMessage({ author: alice, content: 'open up the folder', mentionBot: true });
    await channelPost(s, threadId, 'left it alone');
    expect(s.answers).toEqual([false]);
    s.discord.userMessage({ author: alice, content: 'try again', channelId: threadId });
    const buttons = await buttonsMessage(s);
    s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'once'), messageId: buttons.id });
    await channelPost(s, threadId, 'ran it');
    expect(s.answers).toEqual([false, true]);
  });

  it('refuses a press by a user who is not allowed like any message of theirs; the request keeps waiting', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    const intruder = s.discord.buttonPress({ user: mallory, customId: dataOf(buttons, 'once'), messageId: buttons.id });
    expect((await callbackOf(s, intruder)).body).toEqual({ type: 6 });
    const refusal = await s.discord.waitForCall('POST', new RegExp(`^/channels/${threadId}/messages$`), (c) =>
      String(c.body?.content).includes('not allowed'),
    );
    expect(String(refusal.body?.content)).toContain(mallory.id);
    expect(s.answers).toEqual([]);
    expect(s.gateway.threadState(`discord:${s.discord.guildId}:${threadId}`).running).toBe(true);
    s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'deny'), messageId: buttons.id });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
  });

  it('refuses a press whose custom_id names a request nobody asked; the real button still answers', async () => {
    const s = await setup();
    const { threadId, buttons } = await askInThread(s);
    const forged = s.discord.buttonPress({ user: alice, customId: 'hermes:approval:0123456789abcdef:once', messageId: buttons.id });
    expect((await callbackOf(s, forged)).body).toEqual({ type: 6 });
    await s.discord.waitForCall('POST', new RegExp(`^/channels/${threadId}/messages$`), (c) => String(c.body?.content).includes('no longer waiting'));
    expect(s.answers).toEqual([]);
    s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'deny'), messageId: buttons.id });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
  });

  it('in a DM, sends the buttons to the DM and a press answers the DM\'s session', async () => {
    const s = await setup();
    const dmChannel = '940000000000000011';
    s.discord.userMessage({ author: alice, content: 'open up the folder', channelId: dmChannel, dm: true });
    const buttons = await buttonsMessage(s);
    expect(buttons.channel_id).toBe(dmChannel);
    const press = s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'once'), messageId: buttons.id, dm: true });
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
    const press = s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'once'), messageId: buttons.id });
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
    s.discord.buttonPress({ user: alice, customId: dataOf(buttons, 'deny'), messageId: buttons.id });
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
    expect(s.discord.callsTo('POST', new RegExp(`^/interactions/${foreign.id}/`))).toHaveLength(0);
  });
});
