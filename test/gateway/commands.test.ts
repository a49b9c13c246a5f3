import { afterEach, describe, expect, it } from 'vitest';
import { Gateway, parseCommand } from '../../src/gateway/index.js';
import type { ThreadSettings } from '../../src/agent/types.js';
import { FakeAgent, RecordingAdapter, answerAtOnce, message, testConfig, until, untilAborted } from './helpers.js';

/** A FakeAgent that keeps thread settings and lists models, as the real agent does with state.db. */
class SettingsAgent extends FakeAgent {
  readonly settings = new Map<string, ThreadSettings>();
  threadSettings(key: string): ThreadSettings {
    return { ...this.settings.get(key) };
  }
  updateThreadSettings(key: string, patch: Partial<Record<keyof ThreadSettings, string | undefined>>): ThreadSettings {
    const next: Record<string, string | undefined> = { ...this.settings.get(key), ...patch };
    for (const [name, value] of Object.entries(next)) if (value === undefined) delete next[name];
    this.settings.set(key, next as ThreadSettings);
    return this.threadSettings(key);
  }
  async models(): Promise<string[]> {
    return ['fake-model', 'big-model'];
  }
}

let gateway: Gateway | undefined;

async function setup(agent: FakeAgent) {
  const adapter = new RecordingAdapter();
  gateway = new Gateway({ agent, config: testConfig({ approvals: { timeout: 300 } }), env: { GATEWAY_ALLOW_ALL_USERS: 'true' } });
  gateway.register(adapter);
  await gateway.start();
  return { gateway, adapter };
}

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

describe('parseCommand', () => {
  it('knows the chat commands, with a bot name suffix and arguments, and leaves other slash words to the agent', () => {
    expect(parseCommand('/new')).toEqual({ name: 'new', args: '' });
    expect(parseCommand('/stop@hermes_bot')).toEqual({ name: 'stop', args: '' });
    expect(parseCommand('  /STATUS  ')).toEqual({ name: 'status', args: '' });
    expect(parseCommand('/start')).toEqual({ name: 'help', args: '' });
    expect(parseCommand('/approve now')).toEqual({ name: 'approve', args: 'now' });
    expect(parseCommand('/model gpt-4o-mini')).toEqual({ name: 'model', args: 'gpt-4o-mini' });
    for (const name of ['usage', 'retry', 'undo', 'compress', 'verbose']) expect(parseCommand(`/${name}`)).toEqual({ name, args: '' });
    expect(parseCommand('/usr/bin/env is a path')).toBeUndefined();
    expect(parseCommand('/frobnicate')).toBeUndefined();
    expect(parseCommand('please /stop')).toBeUndefined();
  });
});

describe('Gateway chat commands', () => {
  it('/stop aborts the running turn and says so; the thread then answers new messages', async () => {
    const agent = new FakeAgent(async (options, record) => (options.text === 'long' ? untilAborted(options, record) : answerAtOnce(options, record)));
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('long'));
    await until(() => agent.turns.length === 1);
    await gateway.dispatch(message('/stop'));
    await gateway.idle();
    expect(agent.turns[0].abortReason).toBe('stopped by the user');
    expect(adapter.textsTo('test:a')).toEqual(['Stopped.']);
    await gateway.dispatch(message('/stop'));
    await gateway.dispatch(message('next'));
    await gateway.idle();
    expect(adapter.textsTo('test:a')).toEqual(['Stopped.', 'Nothing is running.', 'answer: next']);
  });

  it('/new kills the running turn, starts a new session after it settled, and later messages run in the new session', async () => {
    const agent = new FakeAgent(async (options, record) => (options.text === 'long' ? untilAborted(options, record) : answerAtOnce(options, record)));
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('long'));
    await until(() => agent.turns.length === 1);
    await gateway.dispatch(message('/new'));
    await gateway.dispatch(message('fresh'));
    await gateway.idle();
    expect(agent.turns[0].abortReason).toBe('user started a new session');
    expect(agent.log).toEqual(['start test:a long', 'end test:a long', 'new test:a', 'start test:a fresh', 'end test:a fresh']);
    expect(adapter.textsTo('test:a')).toContain('answer: fresh');
    expect(adapter.textsTo('test:a').some((text) => text.startsWith('Started a new session'))).toBe(true);
  });

  it('/status shows model, backend, session age, kernel and turn state', async () => {
    const agent = new FakeAgent(untilAborted);
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('/status'));
    await gateway.idle();
    expect(adapter.sent[0].text).toContain('Model: fake-model');
    expect(adapter.sent[0].text).toContain('Backend: local');
    expect(adapter.sent[0].text).toContain('Session: none yet');
    await gateway.dispatch(message('work'));
    await until(() => agent.turns.length === 1);
    await gateway.dispatch(message('/status'));
    await until(() => adapter.sent.length === 2);
    expect(adapter.sent[1].text).toMatch(/Session: s-test:a, started 2 min ago/);
    expect(adapter.sent[1].text).toContain('Kernel: none');
    expect(adapter.sent[1].text).toContain('Turn: running');
    expect(agent.turns[0].abortReason).toBeUndefined();
  });

  it('/help lists the commands', async () => {
    const { gateway, adapter } = await setup(new FakeAgent());
    await gateway.dispatch(message('/help'));
    await gateway.idle();
    for (const name of ['/new', '/stop', '/status', '/help', '/approve', '/deny', '/usage', '/model', '/retry', '/undo', '/compress', '/verbose']) {
      expect(adapter.sent[0].text).toContain(name);
    }
  });

  it('/approve answers a waiting approval without interrupting the turn; /deny refuses', async () => {
    const answers: boolean[] = [];
    const agent = new FakeAgent(async (options) => {
      answers.push(await options.requestApproval!({ command: 'rm -rf build', reason: 'recursive delete' }));
      answers.push(await options.requestApproval!({ command: 'git reset --hard', reason: 'discards changes' }));
      return { text: 'done', status: 'completed' };
    });
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('clean up'));
    await until(() => adapter.sent.some((sent) => sent.text.includes('rm -rf build')));
    expect(adapter.sent[0].text).toMatch(/Approval needed \(recursive delete\)/);
    await gateway.dispatch(message('/approve'));
    await until(() => adapter.sent.some((sent) => sent.text.includes('git reset --hard')));
    await gateway.dispatch(message('/deny'));
    await gateway.idle();
    expect(answers).toEqual([true, false]);
    expect(agent.turns[0].abortReason).toBeUndefined();
    expect(adapter.textsTo('test:a')).toContain('done');
    await gateway.dispatch(message('/approve'));
    await gateway.idle();
    expect(adapter.textsTo('test:a').at(-1)).toBe('No command is waiting for approval.');
  });

  it('asks through the adapter\'s buttons when it has them; a press comes back as /approve', async () => {
    const answers: boolean[] = [];
    const agent = new FakeAgent(async (options) => {
      answers.push(await options.requestApproval!({ command: 'chmod -R 777 .', reason: 'opens permissions' }));
      return { text: 'done', status: 'completed' };
    });
    const { gateway, adapter } = await setup(agent);
    const asked: string[] = [];
    adapter.approvals = {
      ask: async (_replyTo, text) => {
        asked.push(text);
        return { messageId: 'buttons-1' };
      },
    };
    await gateway.dispatch(message('open it up'));
    await until(() => asked.length === 1);
    expect(asked[0]).toMatch(/Approval needed \(opens permissions\):\n```\nchmod -R 777 \.\n```/);
    expect(adapter.sent.some((sent) => sent.text.includes('chmod'))).toBe(false);
    await gateway.dispatch(message('/approve')); // what the adapter dispatches for a press of Approve
    await gateway.idle();
    expect(answers).toEqual([true]);
  });

  it('/stop ends a wait for approval (the command is refused)', async () => {
    const answers: boolean[] = [];
    const agent = new FakeAgent(async (options) => {
      answers.push(await options.requestApproval!({ command: 'curl x | sh', reason: 'pipes a download into a shell' }));
      return { text: 'stopped', status: options.signal?.aborted ? 'interrupted' : 'completed' };
    });
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('install'));
    await until(() => adapter.sent.length === 1);
    await gateway.dispatch(message('/stop'));
    await gateway.idle();
    expect(answers).toEqual([false]);
    expect(adapter.textsTo('test:a').at(-1)).toBe('Stopped.');
  });
  it('/model picks a listed model for this thread only and refuses one the endpoint does not list; /model default goes back', async () => {
    const agent = new SettingsAgent();
    const { gateway, adapter } = await setup(agent);
    for (const text of ['/model', '/model nonsense-9000', '/model big-model', '/model']) {
      await gateway.dispatch(message(text));
      await gateway.idle();
    }
    const replies = adapter.textsTo('test:a');
    expect(replies[0]).toMatch(/^Model: \(none configured\) \(model\.name\)/);
    expect(replies[1]).toBe('The model endpoint does not list "nonsense-9000". It lists: fake-model, big-model.');
    expect(replies[2]).toMatch(/^This thread now uses big-model/);
    expect(replies[3]).toMatch(/^Model in this thread: big-model/);
    expect(agent.threadSettings('test:b')).toEqual({});
    await gateway.dispatch(message('/model default'));
    await gateway.idle();
    expect(agent.threadSettings('test:a')).toEqual({});
  });

  it('/verbose steps the thread\'s tool progress to the next mode, sets one by name, and refuses an unknown one', async () => {
    const agent = new SettingsAgent();
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('/verbose'));
    await gateway.idle();
    expect(adapter.textsTo('test:a').at(-1)).toBe('Tool progress in this thread: all (a line for every tool call).');
    await gateway.dispatch(message('/verbose off'));
    await gateway.idle();
    expect(agent.threadSettings('test:a')).toEqual({ toolProgress: 'off' });
    await gateway.dispatch(message('/verbose loud'));
    await gateway.idle();
    expect(adapter.textsTo('test:a').at(-1)).toBe('/verbose takes off, new or all (now: off).');
  });
});
