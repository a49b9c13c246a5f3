import { afterEach, describe, expect, it } from 'vitest';
import { pino, type Logger } from 'pino';
import { join } from 'node:path';
import { SlackAdapter } from '../../adapters/slack/index.js';
import { Gateway, approvalQueueFor } from '../../src/gateway/index.js';
import { FakeSlack, type SlackCall } from '../fakes/slack-server.js';
import { FakeAgent, testConfig, until } from '../gateway/helpers.js';
import { tempDir } from '../helpers/tool-context.js';

let slack: FakeSlack | undefined;
let gateway: Gateway | undefined;

interface Setup {
  slack: FakeSlack;
  adapter: SlackAdapter;
  gateway: Gateway;
  agent: FakeAgent;
  answers: boolean[];
  /** Stops the gateway and starts a new one (a new adapter) on the same HERMES_HOME rules file. */
  restart(): Promise<void>;
}

/**
 * The real gateway with the Slack adapter; each turn asks for approval of one command. U1, U3
 * and U5 are allowed; U5 is an approvals admin.
 */
async function setup(mode: 'http' | 'socket', logger?: Logger): Promise<Setup> {
  const fake = (slack = await new FakeSlack().listen());
  const answers: boolean[] = [];
  const rulesFile = join(tempDir('hermes-slack-approvals-'), 'approvals.yaml');
  const agent = new FakeAgent(async (options) => {
    const approved = await options.requestApproval!({ command: 'git reset --hard', reason: 'discards uncommitted changes' });
    answers.push(approved);
    return { text: approved ? 'ran it' : 'left it alone', status: 'completed' };
  });
  const s = { slack: fake, agent, answers } as Setup;
  const start = async () => {
    const adapter =
      mode === 'http'
        ? new SlackAdapter({ botToken: fake.botToken, mode, signingSecret: fake.signingSecret, port: 0, host: '127.0.0.1', apiUrl: fake.apiUrl, ...(logger ? { logger } : {}) })
        : new SlackAdapter({ botToken: fake.botToken, mode, appToken: fake.appToken, apiUrl: fake.apiUrl });
    const config = testConfig({ approvals: { timeout: 300, admins: { slack: ['U5'] } } });
    gateway = new Gateway({ agent, config, env: { SLACK_ALLOWED_USERS: 'U1,U3,U5' }, approvals: approvalQueueFor(config, { rulesFile }) });
    gateway.register(adapter);
    expect((await gateway.start()).started).toEqual(['slack']);
    Object.assign(s, { adapter, gateway });
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
    expect(String((blocks[0].text as { text: string }).text)).toMatch(/Approval needed \(discards uncommitted changes\):\n```\ngit reset --hard\n```/);
    expect(String((blocks[0].text as { text: string }).text)).toContain('Asked by U1; only U1 or an admin can answer.');
    expect(blocks[1]).toEqual({
      type: 'actions',
      block_id: 'hermes_approval',
      elements: [
        { type: 'button', action_id: 'hermes_approval_once', style: 'primary', text: { type: 'plain_text', text: 'Approve once' }, value: expect.stringMatching(/^hermes:approval:[0-9a-f]{16}:once$/) },
        { type: 'button', action_id: 'hermes_approval_session', text: { type: 'plain_text', text: 'This session' }, value: expect.stringMatching(/^hermes:approval:[0-9a-f]{16}:session$/) },
        { type: 'button', action_id: 'hermes_approval_always', text: { type: 'plain_text', text: 'Always' }, value: expect.stringMatching(/^hermes:approval:[0-9a-f]{16}:always$/) },
        { type: 'button', action_id: 'hermes_approval_deny', style: 'danger', text: { type: 'plain_text', text: 'Deny' }, value: expect.stringMatching(/^hermes:approval:[0-9a-f]{16}:deny$/) },
      ],
    });
    expect(String(buttons.params.text)).toContain('git reset --hard');
    // The request went out as buttons only, not also as a plain message.
    expect(s.slack.callsTo('chat.postMessage').filter((c) => String(c.params.text).includes('git reset'))).toHaveLength(1);
  });

  it('Approve once, pressed by the requester over HTTP, is acknowledged and resolves the approval true in the same thread', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    const ts = postedTs(s.slack, buttons);
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U1', channel: 'C1', ts });
    const response = await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), payload);
    expect(response.status).toBe(200);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'Approved.');
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'ran it');
    expect(s.agent.turns).toHaveLength(1);
    // The request now says how it ended, and its buttons are gone.
    const settled = s.slack.messages.find((m) => m.ts === ts)!;
    expect(settled.text).toMatch(/git reset --hard\n```\n\n✅ Approved by u1\.$/);
    expect(settled.blocks).toEqual([]);
  });

  it('Deny resolves the approval false', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    const ts = postedTs(s.slack, buttons);
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approval_deny', user: 'U1', channel: 'C1', ts });
    expect((await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), payload)).status).toBe(200);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'Denied.');
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'left it alone');
    const settled = s.slack.messages.find((m) => m.ts === ts)!;
    expect(settled.text).toMatch(/git reset --hard\n```\n\n❌ Denied by u1\.$/);
    expect(settled.blocks).toEqual([]);
  });

  it('an allowed stranger in the thread cannot answer U1\'s request; U5, an admin, can', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    const ts = postedTs(s.slack, buttons);
    for (const actionId of ['hermes_approval_once', 'hermes_approval_always']) {
      await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), s.slack.blockActionsPayload({ actionId, user: 'U3', channel: 'C1', ts }));
    }
    await until(
      () => s.slack.callsTo('chat.postMessage').filter((c) => c.params.thread_ts === threadTs && c.params.text === 'Only U1 or an admin can answer this request.').length === 2,
      'two refusals',
    );
    expect(s.answers).toEqual([]);
    expect(s.slack.messages.find((m) => m.ts === ts)!.blocks).toHaveLength(2);
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U5', channel: 'C1', ts }));
    await until(() => s.answers.length === 1, 'the admin\'s answer');
    expect(s.answers).toEqual([true]);
    await until(() => /✅ Approved by u5\.$/.test(s.slack.messages.find((m) => m.ts === ts)!.text), 'the settled request');
  });

  it('This session lets the same command run again in the thread without buttons', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), s.slack.blockActionsPayload({ actionId: 'hermes_approval_session', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) }));
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'ran it');
    const again = { type: 'message', channel: 'C1', user: 'U1', text: 'once more', ts: s.slack.nextTs(), thread_ts: threadTs };
    await s.slack.deliverHttp(eventsUrl(s.adapter), s.slack.eventBody(again));
    await until(() => s.answers.length === 2, 'the second turn');
    expect(s.answers).toEqual([true, true]);
    expect(s.slack.callsTo('chat.postMessage').filter((c) => c.params.blocks !== undefined)).toHaveLength(1);
  });

  it('Always keeps a rule that holds after a restart: a new mention runs without asking', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), s.slack.blockActionsPayload({ actionId: 'hermes_approval_always', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) }));
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && String(c.params.text).startsWith('Approved always: kept as rule 1'));
    await until(() => s.answers.length === 1, 'the first turn');
    await s.restart();
    const event = { type: 'app_mention', channel: 'C2', user: 'U3', text: `<@${s.slack.botUserId}> reset it`, ts: s.slack.nextTs() };
    await s.slack.deliverHttp(eventsUrl(s.adapter), s.slack.eventBody(event));
    await until(() => s.answers.length === 2, 'the turn after the restart');
    expect(s.answers).toEqual([true, true]);
    expect(s.slack.callsTo('chat.postMessage').filter((c) => c.params.blocks !== undefined)).toHaveLength(1);
  });

  it('a refused buttons message ends that request at once, and the next request is answerable at once', async () => {
    const s = await setup('http');
    s.slack.refuseNext('chat.postMessage', 'invalid_blocks', (params) => params.blocks !== undefined);
    const threadTs = s.slack.nextTs();
    const event = { type: 'app_mention', channel: 'C1', user: 'U1', text: `<@${s.slack.botUserId}> clean the repo`, ts: threadTs };
    await s.slack.deliverHttp(eventsUrl(s.adapter), s.slack.eventBody(event));
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'left it alone');
    expect(s.answers).toEqual([false]);
    const again = { type: 'message', channel: 'C1', user: 'U1', text: 'try again', ts: s.slack.nextTs(), thread_ts: threadTs };
    await s.slack.deliverHttp(eventsUrl(s.adapter), s.slack.eventBody(again));
    // The refused message was never stored; the one the fake stored is the second request's.
    await until(() => s.slack.messages.some((m) => m.blocks && m.thread_ts === threadTs), 'the second request');
    const ts = s.slack.messages.find((m) => m.blocks && m.thread_ts === threadTs)!.ts;
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U1', channel: 'C1', ts }));
    await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && c.params.text === 'ran it');
    expect(s.answers).toEqual([false, true]);
  });

  it('refuses a press by a user who is not allowed like any message of theirs; the request keeps waiting', async () => {
    const s = await setup('http');
    const { threadTs, buttons } = await askInThread(s);
    const ts = postedTs(s.slack, buttons);
    const intruder = s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U9', channel: 'C1', ts });
    expect((await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), intruder)).status).toBe(200);
    const refusal = await s.slack.waitForCall('chat.postMessage', (c) => c.params.thread_ts === threadTs && String(c.params.text).includes('not allowed'));
    expect(String(refusal.params.text)).toContain('U9');
    expect(s.answers).toEqual([]);
    expect(s.gateway.threadState(`slack:${s.slack.team}:C1:${threadTs}`).running).toBe(true);
    const owner = s.slack.blockActionsPayload({ actionId: 'hermes_approval_deny', user: 'U1', channel: 'C1', ts });
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), owner);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
  });

  it('refuses an interactive payload whose signature does not match the signing secret', async () => {
    const s = await setup('http');
    const { buttons } = await askInThread(s);
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) });
    const forged = await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), payload, { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    const genuine = s.slack.blockActionsPayload({ actionId: 'hermes_approval_deny', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) });
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), genuine);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
  });

  it('refuses a signed press whose value names a request nobody asked; the real button still answers', async () => {
    const s = await setup('http');
    const { buttons } = await askInThread(s);
    const forged = s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) });
    const actions = forged.actions;
    if (!Array.isArray(actions)) throw new Error('the fake payload has no actions');
    actions[0] = { ...actions[0], value: 'hermes:approval:0123456789abcdef:once' };
    expect((await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), forged)).status).toBe(200);
    await until(() => s.slack.callsTo('chat.postMessage').some((c) => String(c.params.text).includes('no longer waiting')), 'the refusal');
    expect(s.answers).toEqual([]);
    const genuine = s.slack.blockActionsPayload({ actionId: 'hermes_approval_deny', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) });
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), genuine);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([false]);
  });

  it('logs a clear error for a malformed press (a message ts that is not a string) and goes on; the real button still answers', async () => {
    const logged: string[] = [];
    const s = await setup('http', pino({ level: 'info' }, { write: (line: string) => void logged.push(line) }));
    const { buttons } = await askInThread(s);
    const malformed = s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) });
    malformed.message = { ts: 12345 };
    expect((await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), malformed)).status).toBe(200);
    await until(() => logged.some((line) => line.includes('malformed Slack approval button press')), 'the error line');
    const line = logged.find((l) => l.includes('malformed Slack approval button press'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 50, problem: expect.stringContaining('message.ts') });
    expect(s.answers).toEqual([]);
    const genuine = s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U1', channel: 'C1', ts: postedTs(s.slack, buttons) });
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), genuine);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
  });

  it('takes a press over Socket Mode as an interactive envelope, acknowledges it and approves', async () => {
    const s = await setup('socket');
    const threadTs = s.slack.nextTs();
    await s.slack.deliverSocket(s.slack.eventBody({ type: 'app_mention', channel: 'C2', user: 'U1', text: `<@${s.slack.botUserId}> clean`, ts: threadTs }));
    const buttons = await s.slack.waitForCall('chat.postMessage', (call) => call.params.blocks !== undefined);
    expect(buttons.params.thread_ts).toBe(threadTs);
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U1', channel: 'C2', ts: postedTs(s.slack, buttons) });
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
    const payload = s.slack.blockActionsPayload({ actionId: 'hermes_approval_once', user: 'U1', channel: 'D1', ts: postedTs(s.slack, buttons) });
    await s.slack.deliverInteractiveHttp(eventsUrl(s.adapter), payload);
    await until(() => s.answers.length === 1, 'the approval answer');
    expect(s.answers).toEqual([true]);
  });
});
