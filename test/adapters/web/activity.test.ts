import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ThreadActivity } from '../../../adapters/web/activity.js';
import { LiveHub } from '../../../adapters/web/live-hub.js';
import { describeArgs, toolOutcome } from '../../../adapters/web/tool-outcome.js';
import { TranscriptStore } from '../../../adapters/web/transcript.js';
import type { LiveEvent, ToolEntry } from '../../../adapters/web/types.js';

describe('ThreadActivity: what the gateway reports becomes what the page shows', () => {
  let dir: string;
  let store: TranscriptStore;
  let hub: LiveHub;
  let activity: ThreadActivity;
  let heard: LiveEvent[];
  const T = 'abc123';

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hermes-web-activity-'));
    store = new TranscriptStore(dir);
    hub = new LiveHub();
    activity = new ThreadActivity(store, hub);
    heard = [];
    hub.subscribe(T, (event) => heard.push(event));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('turns a tool call into one entry that goes from running to its outcome, and publishes each step', () => {
    activity.agentEvent(T, { type: 'turn_started' });
    expect(activity.isBusy(T)).toBe(true);
    activity.agentEvent(T, { type: 'tool_started', callId: 'call_1', name: 'execute_code', args: { code: 'print(1)' } });
    const running = store.entries(T)[0] as ToolEntry;
    expect(running).toMatchObject({ kind: 'tool', name: 'execute_code', status: 'running', code: 'print(1)' });
    activity.agentEvent(T, {
      type: 'tool_finished',
      callId: 'call_1',
      name: 'execute_code',
      result: { status: 'success', output: '1\n', tool_calls_made: 0, duration_seconds: 0.1 },
      durationMs: 100,
    });
    const entries = store.entries(T);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: running.id, status: 'success', output: '1\n', durationMs: 100 });
    activity.agentEvent(T, { type: 'turn_finished', status: 'completed' });
    expect(activity.isBusy(T)).toBe(false);
    expect(heard.map((event) => event.type)).toEqual(['busy', 'entry', 'entry', 'busy']);
  });

  it('gives each turn its own tool entries although model call ids repeat across turns', () => {
    for (const output of ['first\n', 'second\n']) {
      activity.agentEvent(T, { type: 'turn_started' });
      activity.agentEvent(T, { type: 'tool_started', callId: 'call_1', name: 'execute_code', args: { code: 'x' } });
      activity.agentEvent(T, { type: 'tool_finished', callId: 'call_1', name: 'execute_code', result: { status: 'success', output }, durationMs: 1 });
      activity.agentEvent(T, { type: 'turn_finished', status: 'completed' });
    }
    expect(store.entries(T).map((entry) => (entry as ToolEntry).output)).toEqual(['first\n', 'second\n']);
  });

  it('shows the final answer once when it arrives both as a text event and through send()', () => {
    activity.agentEvent(T, { type: 'turn_started' });
    activity.agentEvent(T, { type: 'text', text: 'Looking…', final: false });
    activity.reply(T, 'Looking…');
    activity.agentEvent(T, { type: 'text', text: 'The answer is 42.', final: true });
    const id = activity.reply(T, 'The answer is 42.');
    activity.agentEvent(T, { type: 'turn_finished', status: 'completed' });
    const assistant = store.entries(T).filter((entry) => entry.kind === 'assistant');
    expect(assistant.map((entry) => [entry.text, entry.kind === 'assistant' && entry.interim])).toEqual([
      ['Looking…', true],
      ['The answer is 42.', false],
    ]);
    expect(id).toBe(assistant[1].id);
  });

  it('shows a reply that no text event announced (command replies, errors)', () => {
    activity.reply(T, 'Started a new session.');
    expect(store.entries(T)).toMatchObject([{ kind: 'assistant', text: 'Started a new session.', interim: false }]);
  });

  it('marks an interrupted turn with a notice, and a call left running as interrupted', () => {
    activity.agentEvent(T, { type: 'turn_started' });
    activity.agentEvent(T, { type: 'tool_started', callId: 'c', name: 'terminal', args: { command: 'sleep 100' } });
    activity.agentEvent(T, { type: 'turn_finished', status: 'interrupted' });
    const [tool, notice] = store.entries(T);
    expect(tool).toMatchObject({ kind: 'tool', status: 'interrupted', args: JSON.stringify({ command: 'sleep 100' }, null, 2) });
    expect(notice).toMatchObject({ kind: 'notice', tone: 'warning', text: expect.stringContaining('interrupted') });
  });

  it('says when a turn stopped at the step limit or on an error', () => {
    activity.agentEvent(T, { type: 'turn_started' });
    activity.agentEvent(T, { type: 'turn_finished', status: 'max_iterations' });
    activity.agentEvent(T, { type: 'turn_started' });
    activity.agentEvent(T, { type: 'turn_finished', status: 'error' });
    expect(store.entries(T).map((entry) => entry.kind === 'notice' && entry.tone)).toEqual(['warning', 'error']);
  });
});

describe('tool outcomes as the page shows them', () => {
  it('reads execute_code results: status, printed output and error', () => {
    expect(toolOutcome({ status: 'timeout', output: 'partial\n', error: 'timed out after 3s', tool_calls_made: 0, duration_seconds: 3 })).toEqual({
      status: 'timeout',
      output: 'partial\n',
      error: 'timed out after 3s',
    });
    expect(toolOutcome(JSON.stringify({ status: 'interrupted', output: '' }))).toEqual({ status: 'interrupted', output: '' });
  });

  it('shows other tools as success with their data, or as an error', () => {
    expect(toolOutcome({ error: 'no such file' })).toEqual({ status: 'error', error: 'no such file' });
    expect(toolOutcome({ content: 'abc' })).toEqual({ status: 'success', output: JSON.stringify({ content: 'abc' }, null, 2) });
  });

  it('shows a call as interrupted when the agent says so, never because its output reads like it', () => {
    expect(toolOutcome('partial listing', 'user sent a new message')).toEqual({
      status: 'interrupted',
      output: 'partial listing',
      error: '[execution interrupted — user sent a new message]',
    });
    expect(toolOutcome({ error: 'terminal: killed' }, '')).toEqual({ status: 'interrupted', error: 'terminal: killed' });
    // A script (or a web page it read) that prints the notice does not turn its card into an interrupt.
    expect(toolOutcome('[execution interrupted — user sent a new message]').status).toBe('success');
  });

  it('cuts a huge output and says how much was left out', () => {
    const outcome = toolOutcome({ status: 'success', output: 'x'.repeat(150_000) });
    expect(outcome.output!.length).toBeLessThan(100_100);
    expect(outcome.output).toContain('[50000 more characters not shown]');
  });

  it('shows execute_code arguments as the script and others as JSON', () => {
    expect(describeArgs('execute_code', { code: 'print(1)' })).toEqual({ code: 'print(1)' });
    expect(describeArgs('execute_code', '{"code": "print(2)"}')).toEqual({ code: 'print(2)' });
    expect(describeArgs('read_file', { path: 'a.txt' })).toEqual({ args: '{\n  "path": "a.txt"\n}' });
    expect(describeArgs('todo', {})).toEqual({});
  });
});
