import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { FakeSlack, slackMessage, type SlackCall } from '../fakes/slack-server.js';
import { groupAlive } from '../../src/environments/index.js';
import { startE2eGateway, release, requestFor, toolResultsFor, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
if (!hasPython && process.env.CI !== 'true') console.log('slack end-to-end tests skipped: python3 is not installed');

const KEY_VAR = 'HERMES_SLACK_E2E_KEY';
process.env[KEY_VAR] = 'sk-fake';

let slack: FakeSlack;
let model: FakeOpenAI;
let running: RunningGateway;
let cleanup: () => void;
let home: string;
let httpPort = 0;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startAll(mode: 'socket' | 'http'): Promise<void> {
  slack = await new FakeSlack().listen();
  const env = {
    ...process.env,
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_ALLOWED_USERS: 'U1,U3',
  };
  const port = mode === 'http' ? await freePort() : 3000;
  httpPort = port;
  ({ running, model, home, cleanup } = await startE2eGateway('slack', { mode, api_url: slack.apiUrl, port }, env, KEY_VAR));
  expect(running.report.started).toEqual(['slack']);
}

// startGateway imports the agent and every adapter lazily; loading them the first time takes
// seconds on a busy machine, so it happens once here rather than inside a hook's timeout.
beforeAll(async () => {
  await Promise.all([import('../../src/agent/index.js'), import('../../adapters/index.js'), import('../../src/gateway/index.js'), import('../../src/approvals/index.js')]);
}, 120_000);

afterEach(async () => {
  await running?.stop();
  await model?.close();
  await slack?.close();
  cleanup?.();
});

const mention = (channel: string, user: string, text: string, ts: string) =>
  slack.eventBody({ type: 'app_mention', channel, user, text: `<@${slack.botUserId}> ${text}`, ts });
/** A mention of the bot inside thread `threadTs` by U1. */
const inThread = (threadTs: string, text: string) =>
  slack.eventBody({ type: 'app_mention', channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> ${text}`, ts: slack.nextTs(), thread_ts: threadTs });
const postIn = (threadTs: string, includes: string) => (call: SlackCall) =>
  call.params.thread_ts === threadTs && String(call.params.text).includes(includes);

describe.runIf(hasPython || process.env.CI === 'true')('Slack end to end: Socket Mode, the gateway, the agent and real execute_code', () => {
  beforeEach(() => startAll('socket'), 60_000);

  it('a new message in a thread kills the running script and is answered in the same thread, while another thread runs on', async () => {
    const threadA = slack.nextTs();
    await slack.deliverSocket(mention('C1', 'U1', 'start the slow job [SLOW:A]', threadA));
    const pgidA = await waitForPgid(home, 'A');
    const threadB = slack.nextTs();
    await slack.deliverSocket(mention('C1', 'U3', 'other work [WAIT:B]', threadB));
    const pgidB = await waitForPgid(home, 'B');
    // The tool progress line puts the bot into thread A, so the follow-up needs no mention.
    await slack.waitForCall('chat.postMessage', (call) => call.params.thread_ts === threadA);
    await slack.deliverSocket(slack.eventBody(slackMessage({ channel: 'C1', user: 'U1', text: 'never mind [A2]', ts: slack.nextTs(), thread_ts: threadA })));

    const answer = await slack.waitForCall('chat.postMessage', postIn(threadA, 'never mind [A2]'));
    expect(answer.params.channel).toBe('C1');
    expect(String(answer.params.text)).toMatch(/^echo: /);
    await waitForGroupGone(pgidA);
    expect(groupAlive(pgidA)).toBe(false);
    expect(toolResultsFor(model.requests, '[A2]').some((content) => content.includes('[execution interrupted — user sent a new message]'))).toBe(true);

    // Thread B was never touched: its script still runs, and finishes once released.
    expect(groupAlive(pgidB)).toBe(true);
    expect(slack.callsTo('chat.postMessage').some(postIn(threadB, 'finished'))).toBe(false);
    release(home, 'B');
    const finished = await slack.waitForCall('chat.postMessage', postIn(threadB, 'finished: '));
    expect(String(finished.params.text)).toContain('B-DONE');
  }, 60_000);

  it('refuses a user who is not allowed, once, telling them their id', async () => {
    const ts = slack.nextTs();
    await slack.deliverSocket(mention('C1', 'U666', 'let me in', ts));
    const refusal = await slack.waitForCall('chat.postMessage', (call) => call.params.thread_ts === ts);
    expect(String(refusal.params.text)).toContain('U666');
    await slack.deliverSocket(mention('C1', 'U666', 'please', slack.nextTs()));
    const ok = slack.nextTs();
    await slack.deliverSocket(mention('C1', 'U1', 'marker', ok));
    await slack.waitForCall('chat.postMessage', postIn(ok, 'echo: marker'));
    expect(model.requests.some((r) => JSON.stringify(r.body.messages).includes('let me in'))).toBe(false);
    expect(slack.callsTo('chat.postMessage').filter((call) => String(call.params.text).includes('U666'))).toHaveLength(1);
  }, 60_000);

  it('splits a long reply at 3,000 characters with (i/n) markers and closes code blocks at the cuts', async () => {
    const ts = slack.nextTs();
    await slack.deliverSocket(mention('C1', 'U1', 'tell me everything [LONG]', ts));
    const last = await slack.waitForCall('chat.postMessage', (call) => call.params.thread_ts === ts && /The end\./.test(String(call.params.text)));
    const parts = slack.callsTo('chat.postMessage').filter((call) => call.params.thread_ts === ts && /\(\d+\/\d+\)\s*$/.test(String(call.params.text)));
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts[parts.length - 1]).toBe(last);
    parts.forEach((call, i) => {
      const text = String(call.params.text);
      expect(text.length).toBeLessThanOrEqual(3000);
      expect(text.trimEnd().endsWith(`(${i + 1}/${parts.length})`)).toBe(true);
      expect((text.match(/```/g) ?? []).length % 2).toBe(0);
    });
  }, 60_000);

  it('/stop ends the running turn and kills its script; /new starts a fresh session', async () => {
    const ts = slack.nextTs();
    await slack.deliverSocket(mention('C1', 'U1', 'run forever [SLOW:S]', ts));
    const pgid = await waitForPgid(home, 'S');
    await slack.deliverSocket(inThread(ts, '/stop'));
    const stopped = await slack.waitForCall('chat.postMessage', postIn(ts, 'Stopped'));
    expect(stopped.params.channel).toBe('C1');
    await waitForGroupGone(pgid);
    await slack.deliverSocket(inThread(ts, '/new'));
    await slack.waitForCall('chat.postMessage', postIn(ts, 'new session'));
    await slack.deliverSocket(inThread(ts, 'fresh start'));
    await slack.waitForCall('chat.postMessage', postIn(ts, 'echo: fresh start'));
    const fresh = requestFor(model.requests, 'fresh start');
    expect(JSON.stringify(fresh?.body.messages)).not.toContain('SLOW:S');
  }, 60_000);
});

describe.runIf(hasPython || process.env.CI === 'true')('Slack end to end over HTTP: signed events to Bolt\'s receiver', () => {
  beforeEach(() => startAll('http'), 60_000);

  it('a redelivered event (X-Slack-Retry-Num, same event_id) reaches the model once', async () => {
    const url = `http://127.0.0.1:${httpPort}/slack/events`;
    const ts = slack.nextTs();
    const body = mention('C1', 'U1', 'only once [ONCE]', ts);
    expect((await slack.deliverHttp(url, body)).status).toBe(200);
    expect((await slack.deliverHttp(url, body, { retryNum: 1 })).status).toBe(200);
    expect((await slack.deliverHttp(url, body, { retryNum: 2 })).status).toBe(200);
    await slack.waitForCall('chat.postMessage', postIn(ts, 'echo: only once [ONCE]'));
    const marker = slack.nextTs();
    await slack.deliverHttp(url, mention('C1', 'U1', 'marker', marker));
    await slack.waitForCall('chat.postMessage', postIn(marker, 'echo: marker'));
    await running.gateway.idle();
    expect(model.requests.filter((r) => JSON.stringify(r.body.messages).includes('[ONCE]'))).toHaveLength(1);
    expect(slack.callsTo('chat.postMessage').filter(postIn(ts, 'echo:'))).toHaveLength(1);
  }, 60_000);
});
