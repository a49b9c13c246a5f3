import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ApprovalQueue, ApprovalRules, type ApprovalRequest } from '../../src/approvals/index.js';
import { Gateway, approvalQueueFor, parseApprovalCommand } from '../../src/gateway/index.js';
import type { InboundMessage, ReplyTarget } from '../../src/gateway/index.js';
import { tempDir } from '../helpers/tool-context.js';
import { FakeAgent, RecordingAdapter, message, testConfig, until } from './helpers.js';

let gateways: Gateway[] = [];

afterEach(async () => {
  for (const gateway of gateways) await gateway.stop();
  gateways = [];
});

/** An adapter whose next `failures` sends (and approval messages) throw, as a platform refusing them would. */
class FlakyAdapter extends RecordingAdapter {
  failures = 0;
  override async send(replyTo: ReplyTarget, text: string): Promise<{ messageId: string }> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('chat.postMessage failed: channel_not_found');
    }
    return super.send(replyTo, text);
  }
}

const rm: ApprovalRequest = { command: 'rm -rf build', reason: 'recursive delete' };

/** Ada's message in the shared group thread `test:g`. */
function from(user: { id: string; name: string }, text: string, thread = 'g'): InboundMessage {
  return { ...message(text, { thread, user: user.id }), user, chat: { id: thread, type: 'group' } };
}
const ada = { id: 'u-ada', name: 'ada' };
const bob = { id: 'u-bob', name: 'bob' };
const root = { id: 'u-root', name: 'root' };

/** A gateway whose every turn asks for approval of `requests` in order and records the answers. */
async function setup(options: { requests?: ApprovalRequest[]; admins?: string[]; rulesFile?: string; adapter?: RecordingAdapter } = {}) {
  const answers: boolean[] = [];
  const requests = options.requests ?? [rm];
  const agent = new FakeAgent(async (turn) => {
    for (const request of requests) answers.push(await turn.requestApproval!(request));
    return { text: `answers: ${answers.join(',')}`, status: 'completed' };
  });
  const config = testConfig({ approvals: { timeout: 300 } });
  const queue = new ApprovalQueue({
    timeoutMs: 300_000,
    admins: { test: options.admins ?? [] },
    rules: new ApprovalRules({ file: options.rulesFile }),
  });
  const adapter = options.adapter ?? new RecordingAdapter();
  const gateway = new Gateway({ agent, config, env: { GATEWAY_ALLOW_ALL_USERS: 'true' }, approvals: queue });
  gateways.push(gateway);
  gateway.register(adapter);
  await gateway.start();
  /** Sends `text` as `user`; for a chat command, waits for its one reply. */
  const say = async (user: { id: string; name: string }, text: string, thread = 'g') => {
    const before = adapter.sent.length;
    await gateway.dispatch(from(user, text, thread));
    if (text.startsWith('/')) await until(() => adapter.sent.length > before, `the reply to ${text}`);
  };
  return { gateway, adapter, agent, answers, queue, say };
}

describe('approvals through the gateway', () => {
  it('a stranger in the same group thread cannot approve: told who can, and the request keeps waiting for its owner', async () => {
    const { adapter, answers, queue, say } = await setup();
    await say(ada, 'clean the build');
    await until(() => queue.pending('test:g') !== undefined, 'the request');
    expect(adapter.sent[0].text).toMatch(/Asked by ada; only ada or an admin can answer/);
    await say(bob, '/approve');
    expect(adapter.textsTo('test:g').at(-1)).toBe('Only ada or an admin can answer this request.');
    await say(bob, '/approve always');
    expect(answers).toEqual([]);
    expect(queue.pending('test:g')).toEqual(expect.objectContaining({ command: 'rm -rf build' }));
    expect(queue.rules.list()).toEqual([]);
    await say(ada, '/deny');
    await until(() => answers.length === 1, 'the answer');
    expect(answers).toEqual([false]);
  });

  it('an admin listed in approvals.admins may answer someone else\'s request', async () => {
    const { adapter, answers, say } = await setup({ admins: [root.id] });
    await say(ada, 'clean the build');
    await until(() => adapter.sent.length === 1, 'the request');
    await say(root, '/approve');
    await until(() => answers.length === 1, 'the answer');
    expect(answers).toEqual([true]);
    expect(adapter.textsTo('test:g')).toContain('Approved.');
  });

  it('the admins of approvals.admins come from the config for the gateway\'s own queue', () => {
    const config = testConfig({ approvals: { admins: { telegram: ['42'], slack: ['U9'] } } });
    const queue = approvalQueueFor(config);
    expect(queue.mayAnswer({ platform: 'telegram', id: '1' }, { platform: 'telegram', id: '42' })).toBe(true);
    expect(queue.mayAnswer({ platform: 'telegram', id: '1' }, { platform: 'slack', id: 'U9' })).toBe(false);
    expect(queue.mayAnswer({ platform: 'slack', id: 'U1' }, { platform: 'slack', id: 'U9' })).toBe(true);
    expect(queue.mayAnswer({ platform: 'slack', id: 'U1' }, { platform: 'slack', id: 'U2' })).toBe(false);
  });

  it('a failed approval message refuses that request at once and leaves the next one answerable at once', async () => {
    const adapter = new FlakyAdapter();
    const { answers, queue, say } = await setup({ adapter, requests: [rm, { command: 'git reset --hard', reason: 'discards changes' }] });
    adapter.failures = 1;
    await say(ada, 'clean up');
    // The first request ended without waiting out the 300 s timeout; the second waits, alone.
    await until(() => answers.length === 1 && queue.pending('test:g') !== undefined, 'the second request');
    expect(answers).toEqual([false]);
    expect(queue.size('test:g')).toBe(1);
    expect(queue.pending('test:g')?.command).toBe('git reset --hard');
    await say(ada, '/approve');
    await until(() => answers.length === 2, 'the second answer');
    expect(answers).toEqual([false, true]);
    expect(adapter.textsTo('test:g')).toContain('Approved.');
    expect(queue.size('test:g')).toBe(0);
  });

  it('with buttons, a failed buttons message leaves nothing waiting, and the next request\'s buttons settle when answered', async () => {
    const adapter = new RecordingAdapter();
    let refuse = true;
    const asked: string[] = [];
    adapter.approvals = {
      ask: async (_replyTo, text) => {
        if (refuse) {
          refuse = false;
          throw new Error('Bad Request: BUTTON_DATA_INVALID');
        }
        asked.push(text);
        return { messageId: 'buttons-2' };
      },
    };
    const { answers, queue, say } = await setup({ adapter, requests: [rm, rm] });
    await say(ada, 'clean up');
    await until(() => asked.length === 1, 'the second request');
    expect(answers).toEqual([false]);
    await say(ada, '/approve');
    await until(() => answers.length === 2, 'the answer');
    expect(answers).toEqual([false, true]);
    expect(queue.size('test:g')).toBe(0);
    await until(() => adapter.edits.length === 1, 'the settled message');
    expect(adapter.edits[0]).toEqual({ messageId: 'buttons-2', text: '⚠️ Approval needed (recursive delete):\n```\nrm -rf build\n```\n\n✅ Approved by ada.' });
  });

  it('/approve session allows the same command again without asking until /new', async () => {
    const { adapter, answers, say, gateway } = await setup();
    await say(ada, 'clean');
    await until(() => adapter.sent.length === 1, 'the request');
    await say(ada, '/approve session');
    await until(() => answers.length === 1, 'the answer');
    expect(adapter.textsTo('test:g')).toContain('Approved for this session: the same request runs without asking until /new.');
    await gateway.idle();
    const asked = adapter.sent.filter((sent) => sent.text.includes('Approval needed')).length;
    await say(ada, 'clean again');
    await until(() => answers.length === 2, 'the second turn');
    await gateway.idle();
    expect(answers).toEqual([true, true]);
    expect(adapter.sent.filter((sent) => sent.text.includes('Approval needed'))).toHaveLength(asked);
    await say(ada, '/status');
    expect(adapter.textsTo('test:g').at(-1)).toContain('Approved for this session: 1 request (until /new)');
    await say(ada, '/new');
    await say(ada, 'clean once more');
    await until(() => adapter.sent.filter((sent) => sent.text.includes('Approval needed')).length === asked + 1, 'a new request');
    await say(ada, '/deny');
    await until(() => answers.length === 3, 'the third answer');
    expect(answers).toEqual([true, true, false]);
  });

  it('/approve always keeps a rule that survives a restart, shows in /status, and /approve forget removes it', async () => {
    const home = tempDir('hermes-approvals-');
    const rulesFile = join(home, 'approvals.yaml');
    const first = await setup({ rulesFile });
    await first.say(ada, 'clean');
    await until(() => first.adapter.sent.length === 1, 'the request');
    await first.say(ada, '/approve always');
    await until(() => first.answers.length === 1, 'the answer');
    expect(first.adapter.textsTo('test:g')).toContain('Approved always: kept as rule 1 (/status lists the rules; /approve forget 1 removes it).');
    expect(statSync(rulesFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(rulesFile, 'utf8')).toContain('rm -rf build');
    await first.gateway.stop();

    // A new gateway on the same HERMES_HOME: the rule holds in any thread, for anyone's turn.
    const second = await setup({ rulesFile });
    await second.say(bob, 'clean', 'other');
    await until(() => second.answers.length === 1, 'the turn');
    await second.gateway.idle();
    expect(second.answers).toEqual([true]);
    expect(second.adapter.sent.some((sent) => sent.text.includes('Approval needed'))).toBe(false);
    await second.say(bob, '/status', 'other');
    expect(second.adapter.textsTo('test:other').at(-1)).toContain('Approval rules (/approve forget <n> removes one):\n  1. rm -rf build — recursive delete (by test:u-ada (ada))');
    await second.say(bob, '/approve forget 2', 'other');
    expect(second.adapter.textsTo('test:other').at(-1)).toBe('There is no rule 2; the rules are numbered 1 to 1 (see /status).');
    await second.say(bob, '/approve forget 1', 'other');
    expect(second.adapter.textsTo('test:other').at(-1)).toBe('Removed rule 1: rm -rf build (recursive delete). It asks again from now on.');
    await second.say(bob, 'clean', 'other');
    await until(() => second.adapter.sent.some((sent) => sent.text.includes('Approval needed')), 'a new request');
    await second.say(bob, '/deny', 'other');
    await until(() => second.answers.length === 2, 'the answer');
    expect(second.answers).toEqual([true, false]);
  });

  it('answers an unknown /approve argument with the usage, and leaves the request waiting', async () => {
    const { adapter, answers, queue, say } = await setup();
    await say(ada, 'clean');
    await until(() => adapter.sent.length === 1, 'the request');
    await say(ada, '/approve forever');
    expect(adapter.textsTo('test:g').at(-1)).toMatch(/^I did not understand "\/approve forever"\. Use \/approve \(once\), \/approve session, \/approve always, \/deny/);
    expect(answers).toEqual([]);
    expect(queue.size('test:g')).toBe(1);
  });
});

describe('parseApprovalCommand', () => {
  it('reads the answers and the rule removal', () => {
    expect(parseApprovalCommand('approve', '')).toEqual({ kind: 'answer', answer: { approved: true, scope: 'once' } });
    expect(parseApprovalCommand('approve', 'once')).toEqual({ kind: 'answer', answer: { approved: true, scope: 'once' } });
    expect(parseApprovalCommand('approve', 'Session')).toEqual({ kind: 'answer', answer: { approved: true, scope: 'session' } });
    expect(parseApprovalCommand('approve', 'always')).toEqual({ kind: 'answer', answer: { approved: true, scope: 'always' } });
    expect(parseApprovalCommand('approve', 'forget 3')).toEqual({ kind: 'forget', rule: 3 });
    expect(parseApprovalCommand('deny', '')).toEqual({ kind: 'answer', answer: { approved: false } });
    for (const [name, args] of [['approve', 'forget'], ['approve', 'forget x'], ['approve', 'always please'], ['deny', 'always']] as const) {
      expect(parseApprovalCommand(name, args).kind).toBe('invalid');
    }
  });
});
