import { afterEach, describe, expect, it } from 'vitest';
import { SlackAdapter } from '../../adapters/slack/index.js';
import { Gateway } from '../../src/gateway/index.js';
import { FakeSlack, type SlackCall } from '../fakes/slack-server.js';
import { FakeAgent, testConfig, until } from '../gateway/helpers.js';

let slack: FakeSlack | undefined;
let gateway: Gateway | undefined;

interface Setup {
  slack: FakeSlack;
  adapter: SlackAdapter;
  gateway: Gateway;
  agent: FakeAgent;
  answers: boolean[];
}

/** The real gateway with the Slack adapter; each turn asks for approval of one command, U1 and U3 are allowed. */
async function setup(mode: 'http' | 'socket'): Promise<Setup> {
  slack = await new FakeSlack().listen();
  const answers: boolean[] = [];
  const agent = new FakeAgent(async (options) => {
    const approved = await options.requestApproval!({ command: 'git reset --hard', reason: 'discards uncommitted changes' });
    answers.push(approved);
    return { text: approved ? 'ran it' : 'left it alone', status: 'completed' };
  });
  const adapter =
    mode === 'http'
      ? new SlackAdapter({ botToken: slack.botToken, mode, signingSecret: slack.signingSecret, port: 0, host: '127.0.0.1', apiUrl: slack.apiUrl })
      : new SlackAdapter({ botToken: slack.botToken, mode, appToken: slack.appToken, apiUrl: slack.apiUrl });
  gateway = new Gateway({ agent, config: testConfig({ approvals: { timeout: 300 } }), env: { SLACK_ALLOWED_USERS: 'U1,U3' } });
  gateway.register(adapter);
  expect((await gateway.start()).started).toEqual(['slack']);
  return { slack, adapter, gateway, agent, answers };
}

afterEach(async () => {
  await gateway?.stop();
  await slack?.close();
  gateway = undefined;
  slack = undefined;
});

const eventsUrl = (adapter: SlackAdapter): string => `http://127.0.0.1:${adapter.httpPort}/slack/events`;

/** U1 mentions the bot in C1 over HTTP; resolves with the thread ts and the buttons message the approval posted. */
async function askInThread(s: Setup, channel = 'C1'): Promise<{ threadTs: string; buttons: SlackCall }> {
  const threadTs = s.slack.nextTs();
  const event = { type: 'app_mention', channel, user: 'U1', text: `<@${s.slack.botUserId}> clean the repo`, ts: threadTs };
  await s.slack.deliverHttp(eventsUrl(s.adapter), s.slack.eventBody(event));
  const buttons = await s.slack.waitForCall('chat.postMessage', (call) => call.params.blocks !== undefined);
  return { threadTs, buttons };
}

/** The ts of the message the fake answered `call` with. */
function postedTs(slackServer: FakeSlack, call: SlackCall): string {
  const posted = slackServer.messages.find((m) => m.blocks && m.text === call.params.text && m.thread_ts === call.params.thread_ts);
  if (!posted) throw new Error('the buttons message was not stored');
  return posted.ts;
}

describe('Slack approval buttons through the gateway', () => {
  it('posts the request in the thread with an Approve (primary) and a Deny (danger) button', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    expect(buttons.params.channel).toBe('C1');
    expect(buttons.params.thread_ts).toBe(threadTs);
    const blocks = JSON.parse(String(buttons.params.blocks)) as Array<Record<string, unknown>>;
    expect(blocks[0]).toMatchObject({ type: 'section', text: { type: 'mrkdwn' } });
    expect(String((blocks[0].text as { text: string }).text)).toMatch(/Approval needed \(discards uncommitted changes\):\ngit reset --hard/);
    expect(blocks[1]).toMatchObject({
      type: 'actions',
      elements: [
        { type: 'button', action_id: 'hermes_approve', style: 'primary', text: { type: 'plain_text', text: 'Approve' } },
        { type: 'button', action_id: 'hermes_deny', style: 'danger', text: { type: 'plain_text', text: 'Deny' } },
      ],
    });
    expect(String(buttons.params.text)).toContain('git reset --hard');
    // The request went out as buttons only, not also as a plain message.
    expect(s.slack.callsTo('chat.postMessage').filter((c) => String(c.params.text).includes('git reset'))).toHaveLength(1);
  });

  it('Approve, pressed by an allowed user over HTTP, is acknowledged and resolves the approval true in the same thread', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    const ts = postedTs(s.slack, buttons);
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approve', user: 'U3', channel: 'C1', ts });
    const response = await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), payload);
    expect(response.status).toBe(200);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'Approved.');
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'ran it');
    expect(s.agent.turns).toHaveLength(1);
    // The request now says how it ended, and its buttons are gone.
    const settled = s.slack.messages.find((m) => m.ts === ts)!;
    expect(settled.text).toMatch(/git reset --hard\n\n✅ Approved by u3\.$/);
    expect(settled.blocks).toEqual([]);
  });

  it('Deny resolves the approval false', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    const ts = postedTs(s.slack, buttons);
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_deny', user: 'U1', channel: 'C1', ts });
    expect((await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), payload)).status).toBe(200);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'Denied.');
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'left it alone');
    const settled = s.slack.messages.find((m) => m.ts === ts)!;
    expect(settled.text).toMatch(/git reset --hard\n\n❌ Denied by u1\.$/);
    expect(settled.blocks).toEqual([]);
  });

  it('refuses a press by a user who is not allowed like any message of theirs; the request keeps waiting', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    const ts = postedTs(s.slack, buttons);
    const intruder = s.slack.blockActionsPayload({ actionId: 'hermes_approve', user: 'U9', channel: 'C1', ts });
    expect((await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), intruder)).status).toBe(200);
    const refusal = await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && String(c.params.text).includes('not allowed'));
    expect(String(refusal.params.text)).toContain('U9');
    expect(s.answers).toEqual([]);
    expect(s.gateway.threadState(`slack:${s.slack.team}:C1:${threadTs}`).running).toBe(true);
    const owner = s.slack.blockActionsPayload({ actionId: 'hermes_deny', user: 'U1', channel: 'C1', ts });
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), owner);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
  });

  it('refuses an interactive payload whose signature does not match the signing secret', async () => {
    const s = await setup('http');
    const { buttons } = await askInThread(s);
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approve', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) });
    const forged = await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), payload, { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    const genuine = s.slack.blockActionsPayload({ actionId: 'hermes_deny', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) });
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), genuine);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
  });

  it('takes a press over Socket Mode as an interactive envelope, acknowledges it and approves', async () => {
    const s = await setup('socket');
    const threadTs = s.slack.nextTs();
    await s.slack.deliverSocket(s.slack.eventBody({ type: 'app_mention', channel: 'C2', user: 'U1', text: `<@${s.slack.botUserId}> clean`, ts: threadTs }));
    const buttons = await s.slack.waitForCall('chat.postMessage', (call) => call.params.blocks !== undefined);
    expect(buttons.params.thread_ts).toBe(threadTs);
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approve', user: 'U1', channel: 'C2', ts: postedTs(s.slack, buttons) });
    const envelope = await s.slack.deliverInteractiveSocket(payload);
    expect(s.slack.acks.has(envelope)).toBe(true);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'ran it');
  });

  it('in a DM, posts the buttons in the DM itself and a press answers the DM\'s session', async () => {
    const s = await setup('http');
    const event = { type: 'message', channel_type: 'im', channel: 'D1', user: 'U1', text: 'clean the repo', ts: s.slack.nextTs() };
    await s.slack.deliverHttp(eventsUrl(s.adapter), s.slack.eventBody(event));
    const buttons = await s.slack.waitForCall('chat.postMessage', (call) => call.params.blocks !== undefined);
    expect(buttons.params).toMatchObject({ channel: 'D1' });
    expect(buttons.params.thread_ts).toBeUndefined();
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approve', user: 'U1', channel: 'D1', ts: postedTs(s.slack, buttons) });
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), payload);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
  });
});
