import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlackAdapter, SlackAdapterError, type SlackReplyTarget } from '../../adapters/slack/index.js';
import { FakeSlack, slackMessage } from '../fakes/slack-server.js';
import { recordingHandler, type RecordingHandler } from '../fakes/slack-recorder.js';

let slack: FakeSlack;
let adapter: SlackAdapter;
let rec: RecordingHandler<SlackReplyTarget>;
let controller: AbortController;

async function startAdapter(): Promise<SlackAdapter> {
  const started = new SlackAdapter({
    botToken: slack.botToken,
    mode: 'http',
    signingSecret: slack.signingSecret,
    port: 0,
    host: '127.0.0.1',
    apiUrl: slack.apiUrl,
  });
  await started.start(rec.handler, controller.signal);
  return started;
}

const eventsUrl = (): string => `http://127.0.0.1:${adapter.httpPort}/slack/events`;
const deliver = (event: Record<string, unknown>, eventId?: string, retryNum?: number) =>
  slack.deliverHttp(eventsUrl(), slack.eventBody(event, eventId), { retryNum });
const mention = (fields: { channel: string; user: string; text: string; ts: string; thread_ts?: string }) => ({
  type: 'app_mention',
  ...fields,
});

beforeEach(async () => {
  slack = await new FakeSlack().listen();
  rec = recordingHandler<SlackReplyTarget>();
  controller = new AbortController();
  adapter = await startAdapter();
});

afterEach(async () => {
  controller.abort();
  await adapter.stop();
  await slack.close();
});

describe('Slack adapter over HTTP (Bolt receiver, signed events)', () => {
  it('learns its bot user id with auth.test against the api_url root', async () => {
    expect(slack.callsTo('auth.test').length).toBeGreaterThan(0);
    expect(slack.callsTo('auth.test')[0].token).toBe(slack.botToken);
  });

  it('turns an app mention into a message of the thread rooted at that message, without the mention', async () => {
    const ts = slack.nextTs();
    const response = await deliver(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> what is 2 &amp; 2?`, ts }));
    expect(response.status).toBe(200);
    const message = await rec.nth(1);
    expect(message).toMatchObject({
      platform: 'slack',
      threadKey: `slack:${slack.team}:C1:${ts}`,
      chat: { id: 'C1', type: 'thread' },
      user: { id: 'U1' },
      text: 'what is 2 & 2?',
      messageId: ts,
      replyTo: { channel: 'C1', threadTs: ts, messageTs: ts },
    });
  });

  it('answers in the thread, converts Markdown to mrkdwn, and edits in place with chat.update', async () => {
    const ts = slack.nextTs();
    await deliver(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> hi`, ts }));
    const message = await rec.nth(1);
    const { messageId } = await adapter.send(message.replyTo, '**Done** see [docs](https://example.org/a?b=1&c=2) & `x<y`');
    const post = await slack.waitForCall('chat.postMessage');
    expect(post.params).toMatchObject({
      channel: 'C1',
      thread_ts: ts,
      text: '*Done* see <https://example.org/a?b=1&amp;c=2|docs> &amp; `x&lt;y`',
    });
    await adapter.edit(message.replyTo, messageId, 'step 2 of 3');
    const update = await slack.waitForCall('chat.update');
    expect(update.params).toMatchObject({ channel: 'C1', ts: messageId, text: 'step 2 of 3' });
  });

  it('continues a thread the bot answered in without a mention, and ignores threads it is not part of', async () => {
    const root = slack.nextTs();
    await deliver(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> start`, ts: root }));
    const first = await rec.nth(1);
    await adapter.send(first.replyTo, 'started');
    const foreignRoot = slack.nextTs();
    await deliver(slackMessage({ channel: 'C1', user: 'U2', text: 'someone else talking', ts: foreignRoot }));
    await deliver(slackMessage({ channel: 'C1', user: 'U2', text: 'a reply elsewhere', ts: slack.nextTs(), thread_ts: foreignRoot }));
    await slack.waitForCall('conversations.replies', (call) => call.params.ts === foreignRoot);
    const followTs = slack.nextTs();
    await deliver(slackMessage({ channel: 'C1', user: 'U1', text: 'and then?', ts: followTs, thread_ts: root }));
    // The adapter reports the facts of channel messages; the gateway's group policy drops what does not address the bot.
    const second = await rec.nth(4);
    expect(second.threadKey).toBe(first.threadKey);
    expect(second.text).toBe('and then?');
    expect(second.replyTo).toMatchObject({ threadTs: root, messageTs: followTs });
    const none = { mentioned: false, repliedToBot: false };
    expect(rec.messages.map((m) => [m.text, m.group])).toEqual([
      ['start', { mentioned: true, repliedToBot: false }],
      ['someone else talking', none],
      ['a reply elsewhere', none],
      ['and then?', { mentioned: false, repliedToBot: true }],
    ]);
  });

  it('recognises, after a restart, a thread the bot wrote in by asking conversations.replies', async () => {
    const root = slack.nextTs();
    await deliver(mention({ channel: 'C7', user: 'U1', text: `<@${slack.botUserId}> start`, ts: root }));
    await adapter.send((await rec.nth(1)).replyTo, 'started');
    await adapter.stop();
    adapter = await startAdapter();
    await deliver(slackMessage({ channel: 'C7', user: 'U1', text: 'still there?', ts: slack.nextTs(), thread_ts: root }));
    const again = await rec.nth(2);
    expect(again.threadKey).toBe(`slack:${slack.team}:C7:${root}`);
    expect(slack.callsTo('conversations.replies').map((c) => c.params.ts)).toContain(root);
  });

  it('handles a redelivered event (X-Slack-Retry-Num, same event_id) once', async () => {
    const ts = slack.nextTs();
    const event = mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> once please`, ts });
    await deliver(event, 'EvSAME');
    const retried = await deliver(event, 'EvSAME', 1);
    expect(retried.status).toBe(200);
    await deliver(event, 'EvSAME', 2);
    await deliver(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> marker`, ts: slack.nextTs() }));
    await rec.nth(2);
    expect(rec.messages.map((m) => m.text)).toEqual(['once please', 'marker']);
  });

  it('handles a mention that also arrives as a message event once', async () => {
    const ts = slack.nextTs();
    const text = `<@${slack.botUserId}> double`;
    await deliver(slackMessage({ channel: 'C1', user: 'U1', text, ts }));
    await deliver(mention({ channel: 'C1', user: 'U1', text, ts }));
    await deliver(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> marker`, ts: slack.nextTs() }));
    await rec.nth(2);
    expect(rec.messages.map((m) => m.text)).toEqual(['double', 'marker']);
  });

  it('passes other bots on marked as bots (the group policy decides), ignores its own messages and edits', async () => {
    const ts = slack.nextTs();
    await deliver({ type: 'message', subtype: 'bot_message', channel: 'D1', channel_type: 'im', bot_id: 'B9', text: 'beep', ts });
    await deliver(slackMessage({ channel: 'D1', user: slack.botUserId, text: 'my own words', ts: slack.nextTs() }));
    await deliver({
      type: 'message',
      subtype: 'message_changed',
      channel: 'D1',
      channel_type: 'im',
      ts: slack.nextTs(),
      message: { user: 'U1', text: 'edited', ts },
    });
    await deliver(slackMessage({ channel: 'D1', user: 'U1', text: 'marker', ts: slack.nextTs() }));
    await rec.nth(2);
    expect(rec.messages.map((m) => m.text)).toEqual(['beep', 'marker']);
    expect(rec.messages[0].user).toEqual({ id: 'B9', isBot: true });
  });

  it('makes a DM one session of its own and answers in the DM, not a thread', async () => {
    await deliver(slackMessage({ channel: 'D1', user: 'U1', text: 'hello in private', ts: slack.nextTs() }));
    await deliver(slackMessage({ channel: 'D1', user: 'U1', text: 'second', ts: slack.nextTs() }));
    const [first, second] = [await rec.nth(1), await rec.nth(2)];
    expect(first.threadKey).toBe(`slack:${slack.team}:D1`);
    expect(second.threadKey).toBe(first.threadKey);
    expect(first.chat).toEqual({ id: 'D1', type: 'dm' });
    await adapter.send(first.replyTo, 'hi');
    const post = await slack.waitForCall('chat.postMessage');
    expect(post.params.thread_ts).toBeUndefined();
    expect(post.params.channel).toBe('D1');
  });

  it('refuses a request whose signature does not match the signing secret', async () => {
    const body = slack.eventBody(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> forged`, ts: slack.nextTs() }));
    const forged = await slack.deliverHttp(eventsUrl(), body, { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    await deliver(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> marker`, ts: slack.nextTs() }));
    await rec.nth(1);
    expect(rec.messages.map((m) => m.text)).toEqual(['marker']);
  });

  it('shows work in a thread with the assistant status, and clears it when the turn ends', async () => {
    const ts = slack.nextTs();
    await deliver(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> work`, ts }));
    const message = await rec.nth(1);
    await adapter.presence.typing(message.replyTo);
    expect(slack.statuses).toEqual([{ channel: 'C1', thread_ts: ts, status: 'is working…' }]);
    adapter.onAgentEvent(message.replyTo, { type: 'turn_finished', status: 'completed' });
    await slack.waitForCall('assistant.threads.setStatus', (call) => call.params.status === '');
    expect(slack.callsTo('reactions.add')).toEqual([]);
  });

  it('without the assistant status, shows work with one hourglass reaction per turn and removes it when the turn ends', async () => {
    slack.refuseNext('assistant.threads.setStatus', 'not_allowed_token_type');
    const ts = slack.nextTs();
    await deliver(mention({ channel: 'C1', user: 'U1', text: `<@${slack.botUserId}> work`, ts }));
    const message = await rec.nth(1);
    await adapter.presence.typing(message.replyTo);
    await adapter.presence.typing(message.replyTo);
    expect(slack.callsTo('reactions.add').map((c) => c.params)).toEqual([
      { channel: 'C1', timestamp: ts, name: 'hourglass_flowing_sand' },
    ]);
    adapter.onAgentEvent(message.replyTo, { type: 'turn_finished', status: 'completed' });
    const removed = await slack.waitForCall('reactions.remove');
    expect(removed.params).toEqual({ channel: 'C1', timestamp: ts, name: 'hourglass_flowing_sand' });
  });

  it('fails to start with a SlackAdapterError naming SLACK_BOT_TOKEN when Slack rejects the token', async () => {
    const wrong = new SlackAdapter({ botToken: 'xoxb-wrong', mode: 'http', signingSecret: 'x', port: 0, host: '127.0.0.1', apiUrl: slack.apiUrl });
    const failure = await wrong.start(rec.handler, controller.signal).catch((error: unknown) => error);
    await wrong.stop();
    expect(failure).toBeInstanceOf(SlackAdapterError);
    expect((failure as Error).message).toMatch(/SLACK_BOT_TOKEN/);
  });

  it('answers Slack\'s url_verification challenge so the request URL can be saved', async () => {
    const response = await slack.deliverHttp(eventsUrl(), { type: 'url_verification', token: 'x', challenge: 'challenge-123' });
    expect(response.status).toBe(200);
    expect(response.text).toContain('challenge-123');
  });
});
