import { afterEach, describe, expect, it } from 'vitest';
import { Gateway } from '../../src/gateway/index.js';
import { FakeAgent, RecordingAdapter, answerAtOnce, message, testConfig, until, untilAborted } from './helpers.js';

const env = { GATEWAY_ALLOW_ALL_USERS: 'true' };
let gateway: Gateway | undefined;

async function setup(agent: FakeAgent, overrides: Parameters<typeof testConfig>[0] = {}) {
  const adapter = new RecordingAdapter();
  gateway = new Gateway({ agent, config: testConfig(overrides), env });
  gateway.register(adapter);
  await gateway.start();
  return { gateway, adapter };
}

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

describe('Gateway lanes', () => {
  it('interrupts the running turn with "user sent a new message", waits for it to settle, then answers the new message in the same thread', async () => {
    const agent = new FakeAgent(async (options, record) => {
      if (options.text === 'first') return untilAborted(options, record);
      return answerAtOnce(options, record);
    });
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('first'));
    await until(() => agent.turns.length === 1, 'the first turn');
    await gateway.dispatch(message('second'));
    await gateway.idle();
    expect(agent.turns[0].abortReason).toBe('user sent a new message');
    expect(agent.log).toEqual(['start test:a first', 'end test:a first', 'start test:a second', 'end test:a second']);
    expect(adapter.textsTo('test:a')).toEqual(['answer: second']);
    expect(agent.maxActivePerKey).toBe(1);
  });

  it('never loses quick messages: those that arrive while a turn settles run together in the next turn', async () => {
    let release: (() => void) | undefined;
    const agent = new FakeAgent(async (options, record) => {
      if (options.text !== 'first') return answerAtOnce(options, record);
      // The first turn takes a while to settle after its abort.
      await untilAborted(options, record);
      await new Promise<void>((resolve) => (release = resolve));
      return { text: '', status: 'interrupted' };
    });
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('first'));
    await until(() => agent.turns.length === 1);
    await gateway.dispatch(message('second'));
    await gateway.dispatch(message('third'));
    await until(() => release !== undefined, 'the first turn to be aborted');
    release!();
    await gateway.idle();
    expect(agent.turns.map((turn) => turn.options.text)).toEqual(['first', 'second\n\nthird']);
    expect(adapter.textsTo('test:a')).toEqual(['answer: second\n\nthird']);
    expect(agent.maxActivePerKey).toBe(1);
  });

  it('in queue mode runs a message that arrives during a turn after that turn, untouched', async () => {
    let finishFirst: (() => void) | undefined;
    const agent = new FakeAgent(async (options, record) => {
      if (options.text === 'first') await new Promise<void>((resolve) => (finishFirst = resolve));
      return answerAtOnce(options, record);
    });
    const { gateway, adapter } = await setup(agent, { gateway: { busy_input_mode: 'queue' } });
    await gateway.dispatch(message('first'));
    await until(() => finishFirst !== undefined);
    await gateway.dispatch(message('second'));
    await gateway.dispatch(message('third'));
    expect(gateway.threadState('test:a')).toEqual({ running: true, queued: 2 });
    finishFirst!();
    await gateway.idle();
    expect(agent.turns.every((turn) => turn.abortReason === undefined)).toBe(true);
    expect(adapter.textsTo('test:a')).toEqual(['answer: first', 'answer: second', 'answer: third']);
    expect(agent.maxActivePerKey).toBe(1);
  });

  it('runs at most max_concurrent_turns across threads; the others start in arrival order', async () => {
    const releases: Array<() => void> = [];
    const agent = new FakeAgent(async (options, record) => {
      await new Promise<void>((resolve) => releases.push(resolve));
      return answerAtOnce(options, record);
    });
    const { gateway } = await setup(agent, { gateway: { max_concurrent_turns: 2 } });
    for (const thread of ['t1', 't2', 't3', 't4', 't5']) await gateway.dispatch(message(`hi ${thread}`, { thread }));
    await until(() => agent.turns.length === 2);
    expect(agent.turns.map((turn) => turn.options.sessionKey)).toEqual(['test:t1', 'test:t2']);
    while (agent.turns.length < 5 || agent.activeTotal > 0) {
      await until(() => releases.length > 0 || (agent.turns.length === 5 && agent.activeTotal === 0));
      releases.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await gateway.idle();
    expect(agent.maxActive).toBe(2);
    expect(agent.turns.map((turn) => turn.options.sessionKey)).toEqual(['test:t1', 'test:t2', 'test:t3', 'test:t4', 'test:t5']);
  });

  it('an interrupting message takes over its thread\'s slot instead of queueing behind other threads', async () => {
    const releases: Array<() => void> = [];
    const agent = new FakeAgent(async (options, record) => {
      if (options.text === 'a1') return untilAborted(options, record);
      await new Promise<void>((resolve) => releases.push(resolve));
      return answerAtOnce(options, record);
    });
    const { gateway } = await setup(agent, { gateway: { max_concurrent_turns: 1 } });
    await gateway.dispatch(message('a1', { thread: 'a' }));
    await until(() => agent.turns.length === 1);
    await gateway.dispatch(message('b1', { thread: 'b' }));
    await gateway.dispatch(message('a2', { thread: 'a' }));
    await until(() => agent.turns.length === 2, 'the interrupting turn');
    expect(agent.turns[1].options.text).toBe('a2');
    releases.shift()!();
    await until(() => agent.turns.length === 3, 'the other thread');
    releases.shift()!();
    await gateway.idle();
    expect(agent.turns.map((turn) => turn.options.text)).toEqual(['a1', 'a2', 'b1']);
    expect(agent.maxActive).toBe(1);
  });

  it('a busy thread does not hold up or interrupt another thread', async () => {
    const agent = new FakeAgent(async (options, record) => {
      if (options.text === 'long') return untilAborted(options, record);
      return answerAtOnce(options, record);
    });
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('long', { thread: 'x' }));
    await until(() => agent.turns.length === 1);
    await gateway.dispatch(message('quick', { thread: 'y' }));
    await until(() => adapter.textsTo('test:y').length === 1);
    expect(adapter.textsTo('test:y')).toEqual(['answer: quick']);
    expect(agent.turns[0].abortReason).toBeUndefined();
    expect(gateway.threadState('test:x').running).toBe(true);
  });

  it('on stop aborts running turns with "gateway shutting down", closes the agent and the adapters, and takes no more messages', async () => {
    const agent = new FakeAgent(untilAborted);
    const { gateway, adapter } = await setup(agent);
    await gateway.dispatch(message('work'));
    await until(() => agent.turns.length === 1);
    await gateway.stop();
    expect(agent.turns[0].abortReason).toBe('gateway shutting down');
    expect(agent.turns[0].finished).toBe(true);
    expect(agent.closed).toBe(true);
    expect(adapter.stopped).toBe(true);
    await gateway.dispatch(message('late'));
    expect(agent.turns).toHaveLength(1);
    expect(adapter.sent).toEqual([]);
  });
  it('steer mode: a message sent while a turn runs joins it at the next tool-call boundary, nothing is aborted; one it did not take runs next', async () => {
    let takeNow: (() => void) | undefined;
    const taken: string[][] = [];
    const agent = new FakeAgent(async (options) => {
      if (options.text === 'work') {
        // The turn reaches a tool-call boundary once the test says so, and takes what was sent meanwhile.
        await new Promise<void>((resolve) => (takeNow = resolve));
        taken.push(options.steer?.() ?? []);
        await new Promise<void>((resolve) => (takeNow = resolve));
        return { text: 'worked', status: 'completed' };
      }
      return answerAtOnce(options, { options, finished: false });
    });
    const { gateway, adapter } = await setup(agent, { gateway: { busy_input_mode: 'steer' } });
    await gateway.dispatch(message('work'));
    await until(() => takeNow !== undefined, 'the turn to start');
    await gateway.dispatch(message('also this'));
    takeNow!();
    await until(() => taken.length === 1, 'the boundary');
    await gateway.dispatch(message('and this, too late'));
    takeNow!();
    await gateway.idle();
    expect(taken).toEqual([['also this']]);
    expect(agent.turns[0].abortReason).toBeUndefined();
    expect(agent.log).toEqual(['start test:a work', 'end test:a work', 'start test:a and this, too late', 'end test:a and this, too late']);
    expect(adapter.textsTo('test:a')).toEqual(['worked', 'answer: and this, too late']);
  });
});
