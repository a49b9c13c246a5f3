import { afterEach, describe, expect, it } from 'vitest';
import { Gateway } from '../../src/gateway/index.js';
import { FakeAgent, RecordingAdapter, message, testConfig, until } from './helpers.js';

let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

async function setup(agent: FakeAgent, adapter: RecordingAdapter, progress: 'off' | 'new' | 'all' = 'new') {
  gateway = new Gateway({ agent, config: testConfig({ display: { tool_progress: progress } }), env: { GATEWAY_ALLOW_ALL_USERS: 'true' } });
  gateway.register(adapter);
  await gateway.start();
  return gateway;
}

/** A turn that calls tools in the given order, then answers. */
function toolCalls(names: string[], answer = 'finished') {
  return new FakeAgent(async (options) => {
    names.forEach((name, i) => {
      options.onEvent?.({ type: 'tool_started', callId: `c${i}`, name, args: { code: `step ${i}` } });
      options.onEvent?.({ type: 'tool_finished', callId: `c${i}`, name, result: {}, durationMs: 1 });
    });
    return { text: answer, status: 'completed' };
  });
}

describe('Gateway replies', () => {
  it('splits a long reply to the adapter limit with (i/n) markers, in order', async () => {
    const long = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const adapter = new RecordingAdapter('test', 120);
    const g = await setup(new FakeAgent(async () => ({ text: long, status: 'completed' })), adapter);
    await g.dispatch(message('go'));
    await g.idle();
    expect(adapter.sent.length).toBeGreaterThan(5);
    adapter.sent.forEach((sent, i) => {
      expect(sent.text.length).toBeLessThanOrEqual(120);
      expect(sent.text.endsWith(`(${i + 1}/${adapter.sent.length})`)).toBe(true);
    });
  });

  it('shows tool progress in one message edited in place, a line per new tool in "new" mode', async () => {
    const adapter = new RecordingAdapter();
    const g = await setup(toolCalls(['execute_code', 'execute_code', 'terminal', 'execute_code']), adapter, 'new');
    await g.dispatch(message('go'));
    await g.idle();
    const progress = adapter.sent.filter((sent) => sent.text.startsWith('⚙️'));
    expect(progress).toHaveLength(1);
    const final = adapter.edits.filter((edit) => edit.messageId === progress[0].messageId).at(-1)?.text ?? progress[0].text;
    expect(final.split('\n')).toEqual(['⚙️ execute_code: step 0', '⚙️ terminal: step 2', '⚙️ execute_code: step 3']);
    expect(adapter.sent.at(-1)?.text).toBe('finished');
  });

  it('shows a line per call in "all" mode and nothing in "off" mode', async () => {
    const all = new RecordingAdapter();
    const g = await setup(toolCalls(['read_file', 'read_file']), all, 'all');
    await g.dispatch(message('go'));
    await g.idle();
    const progressId = all.sent.find((sent) => sent.text.startsWith('⚙️'))!.messageId;
    const shown = all.edits.filter((edit) => edit.messageId === progressId).at(-1)?.text ?? all.sent[0].text;
    expect(shown.split('\n')).toHaveLength(2);
    await g.stop();

    const off = new RecordingAdapter();
    const g2 = await setup(toolCalls(['read_file']), off, 'off');
    await g2.dispatch(message('go'));
    await g2.idle();
    expect(off.sent.map((sent) => sent.text)).toEqual(['finished']);
    expect(off.edits).toEqual([]);
  });

  it('throttles progress edits to the adapter minEditIntervalMs but always shows the last state', async () => {
    const adapter = new RecordingAdapter('test', 4096, 60_000);
    const g = await setup(toolCalls(['a', 'b', 'c', 'd', 'e']), adapter, 'all');
    await g.dispatch(message('go'));
    await g.idle();
    // One send, then a single final edit instead of one edit per tool.
    expect(adapter.edits.length).toBeLessThanOrEqual(1);
    const shown = adapter.edits.at(-1)?.text ?? adapter.sent[0].text;
    expect(shown.split('\n')).toHaveLength(5);
  });

  it('repeats the typing indicator while a turn runs', async () => {
    const adapter = new RecordingAdapter('test', 4096, 0, 10);
    let release: (() => void) | undefined;
    const g = await setup(new FakeAgent(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return { text: 'ok', status: 'completed' };
    }), adapter);
    await g.dispatch(message('go'));
    await until(() => adapter.typings.length >= 3, 'three typing indicators');
    release!();
    await g.idle();
    const count = adapter.typings.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(adapter.typings.length).toBe(count);
  });

  it('sends a short plain error when the agent throws, without the details', async () => {
    const adapter = new RecordingAdapter();
    const g = await setup(new FakeAgent(async () => {
      throw new Error('database exploded at /secret/path');
    }), adapter);
    await g.dispatch(message('go'));
    await g.idle();
    expect(adapter.sent).toHaveLength(1);
    expect(adapter.sent[0].text).toMatch(/^Sorry, something went wrong while answering \(ref [0-9a-f]{8}\)/);
    expect(adapter.sent[0].text).not.toContain('/secret/path');
  });

  it('sends interim assistant text and forwards agent events and turn notices to onAgentEvent', async () => {
    const adapter = new RecordingAdapter();
    const g = await setup(new FakeAgent(async (options) => {
      options.onEvent?.({ type: 'text', text: 'Let me look.', final: false });
      options.onEvent?.({ type: 'text', text: 'All done.', final: true });
      return { text: 'All done.', status: 'completed' };
    }), adapter, 'off');
    await g.dispatch(message('go'));
    await g.idle();
    expect(adapter.sent.map((sent) => sent.text)).toEqual(['Let me look.', 'All done.']);
    expect(adapter.events.map((event) => event.type)).toEqual(['turn_started', 'text', 'text', 'turn_finished']);
  });
});
