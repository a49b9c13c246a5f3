import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlackAdapter, type SlackReplyTarget } from '../../adapters/slack/index.js';
import { FakeSlack, slackMessage } from '../fakes/slack-server.js';
import { recordingHandler, type RecordingHandler } from '../fakes/slack-recorder.js';

let slack: FakeSlack;
let adapter: SlackAdapter;
let rec: RecordingHandler<SlackReplyTarget>;
let controller: AbortController;

beforeEach(async () => {
  slack = await new FakeSlack().listen();
  rec = recordingHandler<SlackReplyTarget>();
  controller = new AbortController();
  adapter = new SlackAdapter({ botToken: slack.botToken, mode: 'socket', appToken: slack.appToken, apiUrl: slack.apiUrl });
  await adapter.start(rec.handler, controller.signal);
});

afterEach(async () => {
  controller.abort();
  await adapter.stop();
  await slack.close();
});

describe('Slack adapter in Socket Mode', () => {
  it('opens the connection with apps.connections.open and the app token, then waits for hello', async () => {
    const open = await slack.waitForCall('apps.connections.open');
    expect(open.token).toBe(slack.appToken);
    expect(slack.socketCount).toBe(1);
  });

  it('acknowledges events_api envelopes and turns a mention into a thread message', async () => {
    const ts = slack.nextTs();
    const envelope = await slack.deliverSocket(
      slack.eventBody({ type: 'app_mention', channel: 'C2', user: 'U1', text: `<@${slack.botUserId}> over the socket`, ts }),
    );
    expect(slack.acks.has(envelope)).toBe(true);
    const message = await rec.nth(1);
    expect(message).toMatchObject({ threadKey: `slack:${slack.team}:C2:${ts}`, text: 'over the socket' });
    await adapter.send(message.replyTo, 'answer');
    const post = await slack.waitForCall('chat.postMessage');
    expect(post.params).toMatchObject({ channel: 'C2', thread_ts: ts, text: 'answer' });
  });

  it('acknowledges a redelivered envelope (retry_attempt, same event_id) but handles it once', async () => {
    const body = slack.eventBody(slackMessage({ channel: 'D4', user: 'U1', text: 'only once', ts: slack.nextTs() }), 'EvSOCKET');
    const first = await slack.deliverSocket(body);
    const retry = await slack.deliverSocket(body, { retryAttempt: 1 });
    expect([slack.acks.has(first), slack.acks.has(retry)]).toEqual([true, true]);
    await slack.deliverSocket(slack.eventBody(slackMessage({ channel: 'D4', user: 'U1', text: 'marker', ts: slack.nextTs() })));
    await rec.nth(2);
    expect(rec.messages.map((m) => m.text)).toEqual(['only once', 'marker']);
  });

  it('closes the socket on stop', async () => {
    await adapter.stop();
    await new Promise<void>((resolve) => {
      const check = (): void => (slack.socketCount === 0 ? resolve() : void setTimeout(check, 20));
      check();
    });
    expect(slack.socketCount).toBe(0);
  });

  it('reconnects through apps.connections.open when Slack asks it to, and keeps delivering', async () => {
    slack.askToReconnect();
    const ts = slack.nextTs();
    // Deliver once the old connection is gone and the new one is open.
    await new Promise<void>((resolve) => {
      const check = (): void => (slack.connections === 2 && slack.socketCount === 1 ? resolve() : void setTimeout(check, 20));
      check();
    });
    expect(slack.callsTo('apps.connections.open')).toHaveLength(2);
    await slack.deliverSocket(slack.eventBody(slackMessage({ channel: 'D9', user: 'U1', text: 'after the reconnect', ts })));
    expect((await rec.nth(1)).text).toBe('after the reconnect');
  });
});
