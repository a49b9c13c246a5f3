import { spawnSync } from 'node:child_process';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { FakeDiscord, type DiscordCall, type FakeDiscordUser } from '../fakes/discord-server.js';
import { groupAlive } from '../../src/environments/index.js';
import { startE2eGateway, release, requestFor, toolResultsFor, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
if (!hasPython && process.env.CI !== 'true') console.log('discord end-to-end tests skipped: python3 is not installed');

const KEY_VAR = 'HERMES_DISCORD_E2E_KEY';
process.env[KEY_VAR] = 'sk-fake';

const alice: FakeDiscordUser = { id: '800000000000000001', username: 'alice' };
const bob: FakeDiscordUser = { id: '800000000000000002', username: 'bob' };
const mallory: FakeDiscordUser = { id: '800000000000000666', username: 'mallory' };

let discord: FakeDiscord;
let model: FakeOpenAI;
let running: RunningGateway;
let cleanup: () => void;
let home: string;

afterEach(async () => {
  await running?.stop();
  await model?.close();
  await discord?.close();
  cleanup?.();
});

/** A channel message (POST /channels/<id>/messages) whose content includes `text`. */
const postIn = (channelId: string, text: string) => (call: DiscordCall) =>
  call.method === 'POST' && call.path === `/channels/${channelId}/messages` && String(call.body?.content).includes(text);
const waitForPost = (channelId: string, text: string) =>
  discord.waitForCall('POST', new RegExp(`^/channels/${channelId}/messages$`), (call) => String(call.body?.content).includes(text));
/** The interaction's answer (the deferred reply edited, or a follow-up) containing `text`. */
const waitForAnswer = (token: string, text: string) =>
  discord.waitForCall('PATCH', new RegExp(`^/webhooks/\\d+/${token}/messages/@original$`), (call) => String(call.body?.content).includes(text));

// startGateway imports the agent and every adapter lazily; loading them the first time takes
// seconds on a busy machine, so it happens once here rather than inside a hook's timeout.
beforeAll(async () => {
  await Promise.all([import('../../src/agent/index.js'), import('../../adapters/index.js'), import('../../src/gateway/index.js'), import('../../src/approvals/index.js')]);
}, 120_000);

describe.runIf(hasPython || process.env.CI === 'true')('Discord end to end: the Gateway, the agent and real execute_code', () => {
  beforeEach(async () => {
    discord = await new FakeDiscord().listen();
    const env = { ...process.env, DISCORD_BOT_TOKEN: discord.token, DISCORD_ALLOWED_USERS: `${alice.id},${bob.id}` };
    ({ running, model, home, cleanup } = await startE2eGateway('discord', { api_url: discord.apiUrl }, env, KEY_VAR));
    expect(running.report.started).toEqual(['discord']);
  }, 60_000);

  it('a new message in a bot thread kills the running script and is answered in that thread, while another thread runs on', async () => {
    const threadA = discord.userMessage({ author: alice, content: 'start the slow job [SLOW:A]', mentionBot: true });
    const pgidA = await waitForPgid(home, 'A');
    const threadB = discord.userMessage({ author: bob, content: 'other work [WAIT:B]', mentionBot: true });
    const pgidB = await waitForPgid(home, 'B');
    // Both mentions opened threads from their messages; the conversation lives there.
    expect(discord.callsTo('POST', /\/threads$/).map((c) => c.path)).toEqual([
      `/channels/${discord.channelId}/messages/${threadA}/threads`,
      `/channels/${discord.channelId}/messages/${threadB}/threads`,
    ]);
    discord.userMessage({ author: alice, content: 'never mind [A2]', channelId: threadA });

    const answer = await waitForPost(threadA, 'never mind [A2]');
    expect(String(answer.body?.content)).toMatch(/^echo: /);
    await waitForGroupGone(pgidA);
    expect(groupAlive(pgidA)).toBe(false);
    expect(toolResultsFor(model.requests, '[A2]').some((content) => content.includes('[execution interrupted — user sent a new message]'))).toBe(true);

    expect(groupAlive(pgidB)).toBe(true);
    expect(discord.calls.some(postIn(threadB, 'finished'))).toBe(false);
    release(home, 'B');
    const finished = await waitForPost(threadB, 'finished: ');
    expect(String(finished.body?.content)).toContain('B-DONE');
  }, 60_000);

  it('refuses a user who is not allowed, once, telling them their id', async () => {
    const first = discord.userMessage({ author: mallory, content: 'let me in', mentionBot: true });
    const refusal = await waitForPost(first, mallory.id);
    expect(String(refusal.body?.content)).toContain(mallory.id);
    discord.userMessage({ author: mallory, content: 'please', mentionBot: true });
    const marker = discord.userMessage({ author: alice, content: 'marker', mentionBot: true });
    await waitForPost(marker, 'echo: marker');
    expect(model.requests.some((r) => JSON.stringify(r.body.messages).includes('let me in'))).toBe(false);
    expect(discord.calls.filter((c) => c.method === 'POST' && String(c.body?.content).includes(mallory.id))).toHaveLength(1);
  }, 60_000);

  it('splits a long reply at 2,000 characters with (i/n) markers and closes code blocks at the cuts', async () => {
    const thread = discord.userMessage({ author: alice, content: 'tell me everything [LONG]', mentionBot: true });
    await waitForPost(thread, 'The end.');
    const parts = discord.calls.filter((c) => c.method === 'POST' && c.path === `/channels/${thread}/messages`).map((c) => String(c.body?.content));
    expect(parts.length).toBeGreaterThanOrEqual(4);
    parts.forEach((text, i) => {
      expect(text.length).toBeLessThanOrEqual(2000);
      expect(text.trimEnd().endsWith(`(${i + 1}/${parts.length})`)).toBe(true);
      expect((text.match(/```/g) ?? []).length % 2).toBe(0);
    });
  }, 60_000);

  it('/ask runs a turn answered through the interaction; /stop kills it; /new starts a fresh session', async () => {
    await discord.waitForCall('PUT', /\/commands$/);
    discord.slashCommand({ user: alice, name: 'ask', prompt: 'run forever [SLOW:S]' });
    const pgid = await waitForPgid(home, 'S');
    const stop = discord.slashCommand({ user: alice, name: 'stop' });
    await waitForAnswer(stop.token, 'Stopped');
    await waitForGroupGone(pgid);
    const fresh = discord.slashCommand({ user: alice, name: 'new' });
    await waitForAnswer(fresh.token, 'new session');
    const ask = discord.slashCommand({ user: alice, name: 'ask', prompt: 'fresh start' });
    await waitForAnswer(ask.token, 'echo: fresh start');
    expect(JSON.stringify(requestFor(model.requests, 'fresh start')?.body.messages)).not.toContain('SLOW:S');
    // Every command was acknowledged with a deferred response (type 5) first.
    const callbacks = discord.calls.filter((c) => /\/callback$/.test(c.path));
    expect(callbacks).toHaveLength(4);
    expect(callbacks.every((c) => c.body?.type === 5)).toBe(true);
  }, 60_000);
});
