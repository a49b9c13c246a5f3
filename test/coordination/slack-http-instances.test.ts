import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/environments/index.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { requestFor, toolResultsFor, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeSlack, slackMessage, type SlackCall } from '../fakes/slack-server.js';
import { freePort, type SpawnedGateway } from './gateway-processes.js';
import { until } from './helpers.js';
import { instancesMissing, startPlatformWorld, type PlatformWorld } from './platform-world.js';

/*
 * Three `hermes gateway` processes in Slack's HTTP mode (the Events API: signed requests to
 * /slack/events) on one HERMES_HOME and one Redis, each on its own port (SLACK_HTTP_PORT), behind
 * a fake Slack that sends each event to the next instance in turn, as a load balancer would.
 */
const missing = instancesMissing('the Slack HTTP several-instances tests');

const KEY_VAR = 'HERMES_SLACK_HTTP_INSTANCES_KEY';

interface Instance extends SpawnedGateway {
  name: string;
  port: number;
}

describe.runIf(!missing)('three hermes gateway processes in Slack HTTP mode on one Redis, events sent round robin', () => {
  let world: PlatformWorld<FakeSlack> | undefined;
  let slack: FakeSlack;
  let model: FakeOpenAI;
  let home: string;
  const instances: Instance[] = [];

  /** An instance on its own port for Slack's HTTP events. */
  const start = async (on: PlatformWorld<FakeSlack>, name: string): Promise<Instance> => {
    const port = await freePort();
    const env = { SLACK_BOT_TOKEN: slack.botToken, SLACK_SIGNING_SECRET: slack.signingSecret, SLACK_ALLOWED_USERS: 'U1', SLACK_HTTP_PORT: String(port) };
    return { name, port, ...(await on.start(name, env, 'started slack')) };
  };

  const url = (to: Instance) => `http://127.0.0.1:${to.port}/slack/events`;
  /** A mention of the bot by U1 in channel C1: a thread's first message (ts), or one inside it (thread_ts). */
  const mention = (text: string, ts: string, threadTs?: string) =>
    slack.eventBody({ type: 'app_mention', channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> ${text}`, ts, ...(threadTs ? { thread_ts: threadTs } : {}) });
  const deliver = async (to: Instance, body: Record<string, unknown>, retryNum?: number) => {
    const response = await slack.deliverHttp(url(to), body, { retryNum });
    expect(response.status, `${to.name} answered ${response.text}`).toBe(200);
  };
  const answersIn = (root: string) =>
    slack
      .callsTo('chat.postMessage')
      .filter((call: SlackCall) => call.params.thread_ts === root && String(call.params.text).startsWith('echo: '))
      .map((call) => String(call.params.text));
  const userTexts = (tag: string) =>
    requestFor(model.requests, tag)?.body.messages.filter((m) => m.role === 'user').map((m) => String(m.content)) ?? [];

  beforeAll(async () => {
    world = await startPlatformWorld({ tag: 'slack-instances', keyVar: KEY_VAR, platform: 'slack', startFake: () => new FakeSlack().listen(), settings: (fake) => ({ mode: 'http', api_url: fake.apiUrl, host: '127.0.0.1' }) });
    ({ home, model, fake: slack } = world);
    for (const name of ['A', 'B', 'C']) instances.push(await start(world, name));
  }, 180_000);

  afterAll(() => world?.close(), 60_000);

  it('two threads written to round robin over A, B and C are answered in order, each turn with the whole thread', async () => {
    const order = instances;
    const [one, two] = [slack.nextTs(), slack.nextTs()];
    for (let i = 0; i < 6; i++) {
      // Each thread goes round the instances from a different start.
      await deliver(order[i % 3], mention(`one ${i} [RR]`, i === 0 ? one : slack.nextTs(), i === 0 ? undefined : one));
      await deliver(order[(i + 1) % 3], mention(`two ${i} [RR]`, i === 0 ? two : slack.nextTs(), i === 0 ? undefined : two));
      await until(() => answersIn(one).length === i + 1 && answersIn(two).length === i + 1, `the answers to message ${i}`, 30_000);
    }
    expect(answersIn(one)).toEqual(Array.from({ length: 6 }, (_, i) => `echo: one ${i} [RR]`));
    expect(answersIn(two)).toEqual(Array.from({ length: 6 }, (_, i) => `echo: two ${i} [RR]`));
    expect(userTexts('one 5 [RR]')).toEqual(Array.from({ length: 6 }, (_, i) => `one ${i} [RR]`));
    expect(userTexts('two 5 [RR]')).toEqual(Array.from({ length: 6 }, (_, i) => `two ${i} [RR]`));
  }, 180_000);

  it('a message sent to B interrupts the script running on A: its process group dies and the message is answered in the thread', async () => {
    const [a, b] = instances;
    const root = slack.nextTs();
    await deliver(a, mention('start the slow job [SLOW:Q]', root));
    const pgid = await waitForPgid(home, 'Q');
    expect(groupAlive(pgid)).toBe(true);
    await deliver(b, mention('never mind [Q2]', slack.nextTs(), root));
    await until(() => answersIn(root).some((text) => text.includes('never mind [Q2]')), 'the answer to the message sent to B', 60_000);
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
    expect(toolResultsFor(model.requests, '[Q2]').some((content) => content.includes('[execution interrupted — user sent a new message]'))).toBe(true);
  }, 120_000);

  it('a mention Slack sends as app_mention to A, as message to B and again as a retry to C is answered once', async () => {
    const [a, b, c] = instances;
    const root = slack.nextTs();
    const text = `<@${slack.botUserId}> just once [TWIN]`;
    const asMention = slack.eventBody({ type: 'app_mention', channel: 'C1', user: 'U1', text, ts: root });
    const asMessage = slack.eventBody(slackMessage({ channel: 'C1', user: 'U1', text, ts: root }));
    await Promise.all([deliver(a, asMention), deliver(b, asMessage)]);
    await deliver(c, asMention, 1);
    await until(() => answersIn(root).length > 0, 'the answer to the mention', 60_000);
    // A later message of the same thread is answered after anything the twins started there.
    await deliver(c, mention('and then [TWIN2]', slack.nextTs(), root));
    await until(() => answersIn(root).some((answer) => answer.includes('[TWIN2]')), 'the answer to the later message', 60_000);
    expect(answersIn(root)).toEqual(['echo: just once [TWIN]', 'echo: and then [TWIN2]']);
    const asked = model.requests.filter((request) => String(request.body.messages[request.body.messages.length - 1].content).includes('[TWIN]'));
    expect(asked).toHaveLength(1);
  }, 120_000);

  it('/stop sent to C stops the script running on B', async () => {
    const [, b, c] = instances;
    const root = slack.nextTs();
    await deliver(b, mention('run forever [SLOW:P]', root));
    const pgid = await waitForPgid(home, 'P');
    await deliver(c, mention('/stop', slack.nextTs(), root));
    await until(() => slack.callsTo('chat.postMessage').some((call) => call.params.thread_ts === root && String(call.params.text).includes('Stopped')), 'Stopped', 60_000);
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
  }, 120_000);
});
