import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { groupAlive } from '../../src/environments/index.js';
import type { AgentEvent } from '../../src/agent/index.js';
import { echoTool, harness, registryOf, shellTool, toolMessages, type Harness } from './harness.js';
import { readPid } from '../helpers/processes.js';

let h: Harness;
afterEach(async () => h?.cleanup());

describe('the tool-calling loop', () => {
  it('sends the system prompt and the user text, and returns the final answer', async () => {
    h = await harness();
    h.fake.enqueue({ text: 'Hello there.' });
    const events: AgentEvent[] = [];
    const agent = h.agent({ registry: registryOf(shellTool()) });
    const result = await agent.runTurn({ sessionKey: 't:1', text: 'hi', onEvent: (e) => events.push(e) });
    expect(result).toEqual({ status: 'completed', text: 'Hello there.' });
    const body = h.fake.requests[0].body;
    expect(body.model).toBe('fake-model');
    expect(body.messages[0].role).toBe('system');
    expect(String(body.messages[0].content)).toContain('You are Hermes');
    expect(String(body.messages[0].content)).toContain('local — commands run directly on this machine');
    expect(body.messages.slice(1)).toEqual([{ role: 'user', content: 'hi' }]);
    expect(body.tools?.map((t) => t.function.name)).toEqual(['terminal', 'delegate_task', 'skills_list', 'skill_view', 'skill_manage', 'memory', 'session_search']);
    expect(events).toEqual([{ type: 'text', text: 'Hello there.', final: true }]);
  });

  it('passes max_tokens and temperature when configured, and leaves them out otherwise', async () => {
    h = await harness();
    h.fake.enqueue({ text: 'a' }, { text: 'b' });
    await h.agent({ config: { model: { max_tokens: 123, temperature: 0.2 } } }).runTurn({ sessionKey: 't:p', text: 'x' });
    await h.agent().runTurn({ sessionKey: 't:q', text: 'x' });
    expect(h.fake.requests[0].body).toMatchObject({ max_tokens: 123, temperature: 0.2 });
    expect(h.fake.requests[1].body).not.toHaveProperty('max_tokens');
    expect(h.fake.requests[1].body).not.toHaveProperty('temperature');
  });

  it('runs a tool call, sends its result back, and ends with the answer (events in order)', async () => {
    h = await harness();
    h.fake.enqueue(
      { text: 'Let me look.', toolCalls: [{ id: 'call_a', name: 'terminal', arguments: { command: 'echo from-the-shell' } }] },
      { text: 'The shell said hello.' },
    );
    const events: AgentEvent[] = [];
    const agent = h.agent({ registry: registryOf(shellTool()) });
    const result = await agent.runTurn({ sessionKey: 't:2', text: 'run it', onEvent: (e) => events.push(e) });
    expect(result.text).toBe('The shell said hello.');
    const second = h.fake.requests[1].body.messages;
    expect(second[2]).toMatchObject({ role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'call_a', type: 'function' }] });
    expect(second[3].role).toBe('tool');
    expect(second[3].tool_call_id).toBe('call_a');
    expect(JSON.parse(String(second[3].content))).toMatchObject({ output: 'from-the-shell\n', exit_code: 0 });
    expect(events.map((e) => e.type)).toEqual(['text', 'tool_started', 'tool_finished', 'text']);
    expect(events[1]).toMatchObject({ name: 'terminal', args: { command: 'echo from-the-shell' } });
  });

  it('works the same with streamed replies (SSE chunks, tool arguments split)', async () => {
    h = await harness({ stream: true });
    h.fake.enqueue(
      { toolCalls: [{ id: 'call_s', name: 'echo', arguments: { message: 'streamed', times: 2 } }] },
      { text: 'Streaming works fine, thanks for asking.' },
    );
    const agent = h.agent({ registry: registryOf(echoTool()), config: { model: { stream: true } } });
    const result = await agent.runTurn({ sessionKey: 't:stream', text: 'go' });
    expect(h.fake.requests[0].body.stream).toBe(true);
    expect(result).toEqual({ status: 'completed', text: 'Streaming works fine, thanks for asking.' });
    expect(toolMessages(h.fake.requests[1].body)[0].content).toBe(JSON.stringify({ echoed: 'streamed streamed' }));
  });

  it('sends malformed tool arguments back to the model as a tool error, and the turn goes on', async () => {
    h = await harness();
    h.fake.enqueue(
      {
        toolCalls: [
          { id: 'bad_json', name: 'echo', arguments: '{"message": "hi", times: 3' },
          { id: 'bad_type', name: 'echo', arguments: { message: 'hi', times: 'three' } },
          { id: 'missing', name: 'echo', arguments: { times: 1 } },
          { id: 'not_object', name: 'echo', arguments: '[1, 2]' },
          { id: 'unknown', name: 'rm_rf', arguments: {} },
        ],
      },
      { text: 'I will fix my arguments.' },
    );
    const agent = h.agent({ registry: registryOf(echoTool()) });
    const result = await agent.runTurn({ sessionKey: 't:bad', text: 'go' });
    expect(result.status).toBe('completed');
    const byId = Object.fromEntries(toolMessages(h.fake.requests[1].body).map((m) => [m.tool_call_id, JSON.parse(m.content).error]));
    expect(byId.bad_json).toMatch(/^Invalid arguments for echo: not valid JSON/);
    expect(byId.bad_type).toMatch(/^Invalid arguments for echo: times: .*number/);
    // One check per layer: the tool's schema names the missing field, the registry refuses a non-object.
    expect(byId.missing).toMatch(/^Invalid arguments for echo: message: .*expected string/);
    expect(byId.not_object).toContain('expected an object of named arguments');
    expect(byId.unknown).toMatch(/^Unknown tool 'rm_rf'. Available tools: .*echo/);
  });

  it('gives each tool call its own id when a server repeats or omits them', async () => {
    h = await harness();
    h.fake.enqueue(
      {
        respond: () => ({
          toolCalls: [
            { id: 'same', name: 'echo', arguments: { message: 'a', times: 1 } },
            { id: 'same', name: 'echo', arguments: { message: 'b', times: 1 } },
          ],
        }),
      },
      { text: 'ok' },
    );
    await h.agent({ registry: registryOf(echoTool()) }).runTurn({ sessionKey: 't:ids', text: 'go' });
    const messages = h.fake.requests[1].body.messages;
    const ids = (messages[2].tool_calls as Array<{ id: string }>).map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
    expect(toolMessages(h.fake.requests[1].body).map((m) => m.tool_call_id)).toEqual(ids);
  });

  it('says so when the reply was cut off at the token limit', async () => {
    h = await harness();
    h.fake.enqueue({ text: 'The first half of', finishReason: 'length' });
    const result = await h.agent().runTurn({ sessionKey: 't:len', text: 'long answer please' });
    expect(result.text).toBe('The first half of\n\n[The reply was cut off at the token limit; raise model.max_tokens or ask for a shorter answer.]');
  });

  it('cuts a tool result over agent.tool_result_max_chars with a note', async () => {
    h = await harness();
    h.fake.enqueue({ toolCalls: [{ name: 'echo', arguments: { message: 'x'.repeat(100), times: 50 } }] }, { text: 'done' });
    const agent = h.agent({ registry: registryOf(echoTool()), config: { agent: { tool_result_max_chars: 1000 } } });
    await agent.runTurn({ sessionKey: 't:cap', text: 'go' });
    const content = toolMessages(h.fake.requests[1].body)[0].content;
    expect(content).toContain('characters cut here (agent.tool_result_max_chars = 1000)');
    expect(content.startsWith('{"echoed":"xxxx')).toBe(true);
    expect(content.endsWith('xxx"}')).toBe(true);
    expect(content.length).toBeLessThan(1400);
  });

  it('stops at agent.max_iterations with a clear message and a valid history', async () => {
    h = await harness({ fallback: { toolCalls: [{ name: 'echo', arguments: { message: 'again', times: 1 } }] } });
    const agent = h.agent({ registry: registryOf(echoTool()), config: { agent: { max_iterations: 3 } } });
    const result = await agent.runTurn({ sessionKey: 't:max', text: 'loop forever' });
    expect(result.status).toBe('max_iterations');
    expect(result.text).toContain('I stopped after 3 model calls');
    expect(h.fake.requests).toHaveLength(3);
    h.fake.enqueue({ text: 'continuing' });
    await agent.runTurn({ sessionKey: 't:max', text: 'continue' });
    const messages = h.fake.requests[3].body.messages;
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(3);
    expect(messages.at(-2)).toMatchObject({ role: 'assistant', content: expect.stringContaining('I stopped after 3') });
  });

  it('limits tools by agent.tools.enabled and agent.tools.disabled', async () => {
    h = await harness();
    h.fake.enqueue({ text: 'a' }, { text: 'b' });
    const registry = registryOf(echoTool(), shellTool());
    await h.agent({ registry, config: { agent: { tools: { enabled: ['echo', 'terminal', 'skills_list'], disabled: ['terminal'] } } } }).runTurn({
      sessionKey: 't:tools',
      text: 'x',
    });
    expect(h.fake.requests[0].body.tools?.map((t) => t.function.name)).toEqual(['skills_list', 'echo']);
  });
});

describe('interrupts', () => {
  it('kills the running tool, skips the calls not started, saves the turn and notes it in the next message', async () => {
    h = await harness();
    h.fake.enqueue({
      toolCalls: [
        { id: 'first', name: 'terminal', arguments: { command: 'echo $$ > pgid; echo started; sleep 1000' } },
        { id: 'second', name: 'echo', arguments: { message: 'never', times: 1 } },
        { id: 'third', name: 'terminal', arguments: { command: 'touch should-not-exist' } },
      ],
    });
    const events: AgentEvent[] = [];
    const agent = h.agent({ registry: registryOf(shellTool(), echoTool()) });
    const controller = new AbortController();
    const turn = agent.runTurn({
      sessionKey: 't:int',
      text: 'run a long job',
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'tool_started') setTimeout(() => controller.abort('user sent a new message'), 300);
      },
    });
    const result = await turn;
    expect(result.status).toBe('interrupted');
    const pgid = readPid(join(h.home, 'pgid'));
    expect(groupAlive(pgid)).toBe(false);
    expect(events.filter((e) => e.type === 'tool_started').map((e) => (e as { name: string }).name)).toEqual(['terminal']);

    h.fake.enqueue({ text: 'Sorry about that.' });
    const next = await agent.runTurn({ sessionKey: 't:int', text: 'never mind' });
    expect(next.status).toBe('completed');
    const messages = h.fake.requests[1].body.messages;
    const tools = toolMessages(h.fake.requests[1].body);
    expect(tools.map((m) => m.tool_call_id)).toEqual(['first', 'second', 'third']);
    expect(JSON.parse(tools[0].content).output).toMatch(/started\n\[execution interrupted — user sent a new message\]$/);
    expect(tools[1].content).toBe('[Tool execution skipped — echo was not started. user sent a new message]');
    expect(tools[2].content).toBe('[Tool execution skipped — terminal was not started. user sent a new message]');
    const last = messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(String(last.content)).toMatch(/^\[System note: your previous turn was interrupted \(user sent a new message\)/);
    expect(String(last.content).endsWith('\n\nnever mind')).toBe(true);
    expect(messages[1]).toEqual({ role: 'user', content: 'run a long job' });
    // The note is given once.
    h.fake.enqueue({ text: 'ok' });
    await agent.runTurn({ sessionKey: 't:int', text: 'thanks' });
    expect(h.fake.requests[2].body.messages.at(-1)).toEqual({ role: 'user', content: 'thanks' });
  });

  it('cancels the in-flight model request', async () => {
    h = await harness();
    h.fake.enqueue({ hang: true });
    const agent = h.agent();
    const controller = new AbortController();
    const turn = agent.runTurn({ sessionKey: 't:hang', text: 'think hard', signal: controller.signal });
    const request = await h.fake.waitForRequests(1);
    controller.abort('user sent a new message');
    expect(await turn).toMatchObject({ status: 'interrupted' });
    await expect.poll(() => request.aborted).toBe(true);
    h.fake.enqueue({ text: 'here' });
    await agent.runTurn({ sessionKey: 't:hang', text: 'second' });
    const messages = h.fake.requests[1].body.messages.slice(1);
    expect(messages[0]).toEqual({ role: 'user', content: 'think hard' });
    expect(String(messages[1].content)).toContain('previous turn was interrupted');
  });

  it('a signal aborted before the turn starts still keeps the user message', async () => {
    h = await harness();
    const agent = h.agent();
    const result = await agent.runTurn({ sessionKey: 't:pre', text: 'keep me', signal: AbortSignal.abort('user sent a new message') });
    expect(result.status).toBe('interrupted');
    expect(h.fake.requests).toHaveLength(0);
    expect(agent.sessionInfo('t:pre')?.messageCount).toBe(1);
  });
});

describe('a tool that ignores the interrupt', () => {
  it('is abandoned after code_execution.kill_grace plus slack, and the turn still ends interrupted', async () => {
    h = await harness();
    const { defineTool } = await import('../../src/tools/index.js');
    const { z } = await import('zod');
    let release: () => void = () => {};
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'Ignores its signal',
      args: z.object({}),
      run: () => new Promise<{ finished: boolean }>((resolve) => (release = () => resolve({ finished: true }))),
    });
    h.fake.enqueue({ toolCalls: [{ id: 'st', name: 'stubborn', arguments: {} }] }, { text: 'ok' });
    const agent = h.agent({ registry: registryOf(stubborn), config: { code_execution: { kill_grace: 0.1 } } });
    const controller = new AbortController();
    const turn = agent.runTurn({
      sessionKey: 't:stubborn',
      text: 'go',
      signal: controller.signal,
      onEvent: (event) => event.type === 'tool_started' && controller.abort('user sent a new message'),
    });
    expect((await turn).status).toBe('interrupted');
    release();
    await agent.runTurn({ sessionKey: 't:stubborn', text: 'next' });
    const tool = toolMessages(h.fake.requests[1].body)[0];
    expect(tool.content).toBe('[execution interrupted — user sent a new message] (stubborn did not stop within 5.1s; it was abandoned)');
  });
});
