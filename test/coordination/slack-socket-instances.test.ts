import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { FakeSlack, slackMessage, type SlackCall } from '../fakes/slack-server.js';
import { until } from './helpers.js';
import { instancesMissing, startPlatformWorld, type PlatformWorld } from './platform-world.js';

/*
 * Two `hermes gateway` processes in Slack's Socket Mode on one HERMES_HOME and one Redis. Slack
 * sends an event to one of an app's connections; the fake sends it to every one (harder than
 * Slack): each instance drops a twin it saw already, and of the two that take the first copy one
 * wins the claim in Redis (the thread router, which would pass the other copy to the turn's
 * instance, where it interrupts a turn that may not have asked the model yet, backs it up).
 */
const missing = instancesMissing('the Slack Socket Mode several-instances tests');

const KEY_VAR = 'HERMES_SLACK_SOCKET_INSTANCES_KEY';

describe.runIf(!missing)('two hermes gateway processes in Slack Socket Mode on one Redis', () => {
  let world: PlatformWorld<FakeSlack> | undefined;
  let slack: FakeSlack;
  let model: FakeOpenAI;

  const answersIn = (root: string) =>
    slack
      .callsTo('chat.postMessage')
      .filter((call: SlackCall) => call.params.thread_ts === root && String(call.params.text).startsWith('echo: '))
      .map((call) => String(call.params.text));

  beforeAll(async () => {
    world = await startPlatformWorld({ tag: 'slack-socket-instances', keyVar: KEY_VAR, platform: 'slack', startFake: () => new FakeSlack().listen(), settings: (fake) => ({ mode: 'socket', api_url: fake.apiUrl }) });
    ({ model, fake: slack } = world);
    for (const name of ['A', 'B']) await world.start(name, { SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_ALLOWED_USERS: 'U1' }, 'started slack');
    await until(() => slack.socketCount === 2, 'two Socket Mode connections', 30_000);
  }, 180_000);

  afterAll(() => world?.close(), 60_000);

  it('a mention sent as app_mention and as message over both connections is answered once', async () => {
    const root = slack.nextTs();
    const text = `<@${slack.botUserId}> just once [SOCK]`;
    await Promise.all([
      slack.deliverSocket(slack.eventBody({ type: 'app_mention', channel: 'C1', user: 'U1', text, ts: root })),
      slack.deliverSocket(slack.eventBody(slackMessage({ channel: 'C1', user: 'U1', text, ts: root }))),
    ]);
    await until(() => answersIn(root).length > 0, 'the answer to the mention', 60_000);
    // A later message of the thread is answered after anything the copies started there.
    const later = slack.nextTs();
    await slack.deliverSocket(slack.eventBody({ type: 'app_mention', channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> and then [SOCK2]`, ts: later, thread_ts: root }));
    await until(() => answersIn(root).some((answer) => answer.includes('[SOCK2]')), 'the answer to the later message', 60_000);
    expect(answersIn(root)).toEqual(['echo: just once [SOCK]', 'echo: and then [SOCK2]']);
    const asked = model.requests.filter((request) => String(request.body.messages[request.body.messages.length - 1].content).includes('[SOCK]'));
    expect(asked).toHaveLength(1);
  }, 120_000);
});
