import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { silentLogger } from '../../src/shared/index.js';
import { SessionStore } from '../../src/sessions/index.js';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/agent/context/summary.js';
import { PRUNED_KERNEL_GONE, PRUNED_KERNEL_OUTPUT } from '../../src/shared/notices.js';
import type { CodeExecutor } from '../../src/execute-code/index.js';
import { ContextWindows, DEFAULT_CONTEXT_WINDOW } from '../../src/agent/context/window.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { echoTool, harness, registryOf, toolMessages, type Harness } from './harness.js';
import type { FakeReply, RecordedRequest } from '../fakes/openai-server.js';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

/** Summaries on request; otherwise `answer` decides (default: an echo of the last user text). */
function model(answer: (request: RecordedRequest) => FakeReply = (request) => ({ text: `echo: ${String(request.body.messages.at(-1)?.content).slice(0, 40)}` })): FakeReply {
  return {
    respond: (request) => (request.body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT ? { text: 'Summary: the person sent long messages.' } : answer(request)),
  };
}

/** About `tokens` tokens of text that tokenizes like prose. */
const prose = (tokens: number, tag: string) => `${tag} ` + Array.from({ length: tokens }, (_, i) => ['alpha', 'beta', 'gamma', 'delta'][i % 4]).join(' ');

const notices = (events: AgentEvent[]) => events.filter((e): e is AgentEvent & { type: 'text' } => e.type === 'text' && !e.final && e.text.startsWith('compacted'));

describe('compaction', () => {
  it('a context-length error from the API (window not known yet) compacts and retries the request once, then learns the window', async () => {
    h = await harness({ contextWindow: 3000, fallback: model() });
    const agent = h.agent({ config: { agent: { tools: { enabled: [] } }, compression: { keep_last_turns: 1 } } });
    // Turns grow the session until the API refuses one; that turn still completes.
    let events: AgentEvent[] = [];
    for (let i = 1; i <= 10 && !h.fake.requests.some((r) => r.refused); i++) {
      events = [];
      const result = await agent.runTurn({ sessionKey: 'k', text: prose(500, `m${i}`), onEvent: (e) => events.push(e) });
      expect(result.status).toBe('completed');
    }
    const refused = h.fake.requests.filter((r) => r.refused);
    expect(refused).toHaveLength(1);
    const retried = h.fake.requests[h.fake.requests.indexOf(refused[0]) + 2];
    expect(retried.body.messages.at(-1)).toEqual(refused[0].body.messages.at(-1));
    expect(retried.refused).toBeFalsy();
    expect(notices(events)).toHaveLength(1);
    // From then on the window is known and requests are compacted before they are refused.
    for (let i = 7; i <= 12; i++) await agent.runTurn({ sessionKey: 'k', text: prose(500, `m${i}`) });
    expect(h.fake.requests.filter((r) => r.refused)).toHaveLength(1);
  });

  it('when compaction cannot make room, the person is told and offered /new, and nothing loops', async () => {
    // Room for the system prompt with every tool's definition and a small message, not for 3000 tokens of prose.
    h = await harness({ contextWindow: 2500, listModels: ['fake-model'], fallback: model() });
    const agent = h.agent({ config: { agent: { tools: { enabled: [] } } } });
    const result = await agent.runTurn({ sessionKey: 'k', text: prose(3000, 'huge') });
    expect(result.status).toBe('error');
    expect(result.text).toMatch(/no longer fits the model's context window .* Send \/new to start a fresh session/);
    expect(h.fake.requests.filter((r) => r.body.messages[0]?.content !== SUMMARY_SYSTEM_PROMPT)).toHaveLength(0);
    // The next message still gets answered once /undo took the huge one out.
    expect((await agent.undo('k'))?.text).toMatch(/^huge /);
    expect((await agent.runTurn({ sessionKey: 'k', text: 'small' })).text).toBe('echo: small');
  });

  it('/compress summarises older turns on demand and /usage counts the summary call', async () => {
    h = await harness({ countTokens: true, fallback: model() });
    const agent = h.agent({ config: { agent: { tools: { enabled: [] } }, compression: { keep_last_turns: 2 }, model: { pricing: { input: 1, output: 2 } } } });
    for (let i = 1; i <= 6; i++) await agent.runTurn({ sessionKey: 'k', text: `message ${i}` });
    const result = await agent.compress('k');
    expect(result.compacted).toBe(true);
    expect(result.text).toMatch(/^Compacted 4 turns: [\d.]+k? → [\d.]+k? tokens/);
    const summaryCall = h.fake.requests.find((r) => r.body.messages[0]?.content === SUMMARY_SYSTEM_PROMPT)!;
    expect(String(summaryCall.body.messages[1].content)).toContain('Person: message 1');
    await agent.runTurn({ sessionKey: 'k', text: 'after' });
    const last = h.fake.requests.at(-1)!.body.messages;
    expect(last.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(String(last[1].content)).toMatch(/^\[Summary of the earlier conversation \(4 turns summarised/);
    const usage = (await agent.usage('k'))!;
    expect(usage.session.summaries).toBe(1);
    expect(usage.session.calls).toBe(8);
    expect(usage.lastTurn?.promptTokens).toBe(h.fake.requests.at(-1)!.tokens);
    expect(usage.session.cost).toBeCloseTo((usage.session.promptTokens * 1 + usage.session.completionTokens * 2) / 1e6, 10);
    expect(usage.context.window).toBe(DEFAULT_CONTEXT_WINDOW);
    // A session with no more turns than are kept verbatim has nothing to compact: it says so.
    await agent.runTurn({ sessionKey: 'short', text: 'only one' });
    const nothing = await agent.compress('short');
    expect(nothing).toEqual({ compacted: false, text: expect.stringMatching(/^Nothing to compress: nothing older than the last turns to compact/) });
  });

  it('stores a large tool-call argument once and sends it shortened in later requests', async () => {
    h = await harness();
    const big = 'x'.repeat(2_000_000);
    h.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'echo', arguments: { message: big, times: 1 } }] }, { text: 'done' }, { text: 'next' });
    const agent = h.agent({ registry: registryOf(echoTool()) });
    await agent.runTurn({ sessionKey: 'k', text: 'go' });
    await agent.runTurn({ sessionKey: 'k', text: 'again' });
    for (const request of h.fake.requests.slice(1)) {
      const call = request.body.messages.find((m) => m.role === 'assistant' && Array.isArray(m.tool_calls));
      const args = (call?.tool_calls as Array<{ function: { arguments: string } }>)[0].function.arguments;
      expect(args.length).toBeLessThanOrEqual(20_000);
      expect(JSON.parse(args).message).toMatch(/characters cut from this argument in later requests/);
    }
    const raw = new Database(h.paths.stateDb, { readonly: true });
    const sizes = raw.prepare('SELECT (SELECT SUM(LENGTH(message)) FROM messages) AS history, (SELECT SUM(LENGTH(message)) FROM context) AS view').get() as { history: number; view: number };
    raw.close();
    // Once in the history (the tool's echo of it is capped at agent.tool_result_max_chars), never again.
    expect(sizes.history).toBeGreaterThan(2_000_000);
    expect(sizes.history).toBeLessThan(2_200_000);
    expect(sizes.view).toBeLessThan(150_000);
  });

  it('answers malformed tool calls (function: null, arguments as an object) with a plain error, and the turn goes on', async () => {
    h = await harness();
    h.fake.enqueue(
      {
        rawToolCalls: [
          { id: 'nofn', type: 'function', function: null },
          { id: 'objargs', type: 'function', function: { name: 'echo', arguments: { message: 'hi', times: 1 } } },
        ],
      },
      { text: 'I will send them properly.' },
      { text: 'later' },
    );
    const agent = h.agent({ registry: registryOf(echoTool()) });
    const result = await agent.runTurn({ sessionKey: 'k', text: 'go' });
    expect(result).toEqual({ status: 'completed', text: 'I will send them properly.' });
    const byId = Object.fromEntries(toolMessages(h.fake.requests[1].body).map((m) => [m.tool_call_id, JSON.parse(m.content).error as string]));
    expect(byId.nofn).toMatch(/^Invalid tool call nofn: it names no tool \(function: null\)\. Send each tool call as/);
    expect(byId.objargs).toMatch(/^Invalid tool call of echo: its arguments came as an object, not as text\./);
    // The history stays valid for the API.
    expect((await agent.runTurn({ sessionKey: 'k', text: 'again' })).text).toBe('later');
  });

  it('takes the window from model.context_window, else the endpoint\'s model list, else a context-length error', async () => {
    h = await harness({ contextWindow: 32_000, listModels: ['fake-model', 'other'] });
    const settings = h.config().model;
    const listed = new ContextWindows({ model: settings, logger: silentLogger() });
    expect(await listed.get('fake-model')).toEqual({ tokens: 32_000, source: 'endpoint' });
    const configured = new ContextWindows({ model: { ...settings, context_window: 9000 }, logger: silentLogger() });
    expect(await configured.get('fake-model')).toEqual({ tokens: 9000, source: 'config' });
    expect(await configured.get('other')).toEqual({ tokens: 32_000, source: 'endpoint' });
    configured.learn('other', 7000);
    expect(await configured.get('other')).toEqual({ tokens: 7000, source: 'error' });
    expect((await listed.models())?.ids).toEqual(['fake-model', 'other']);
  });
});

describe('session commands on the agent', () => {
  it('/undo drops the last turn from what the model sees, and state.db keeps it', async () => {
    h = await harness({ fallback: model() });
    const agent = h.agent();
    await agent.runTurn({ sessionKey: 'k', text: 'keep me' });
    await agent.runTurn({ sessionKey: 'k', text: 'drop me' });
    expect(await agent.undo('k')).toEqual({ text: 'drop me', removed: 2 });
    await agent.runTurn({ sessionKey: 'k', text: 'next' });
    const sent = JSON.stringify(h.fake.requests.at(-1)!.body.messages);
    expect(sent).toContain('keep me');
    expect(sent).not.toContain('drop me');
    const store = SessionStore.open(h.paths.stateDb, { logger: silentLogger() });
    expect(store.messages(store.current('k')!.id).map((m) => m.content)).toContain('drop me');
    store.close();
    expect(await h.agent().undo('nobody')).toBeUndefined();
  });

  it('a thread\'s /model setting is used for its requests and kept in state.db; others keep model.name', async () => {
    h = await harness({ fallback: model() });
    const agent = h.agent();
    expect(agent.updateThreadSettings('k', { model: 'other-model' })).toEqual({ model: 'other-model' });
    await agent.runTurn({ sessionKey: 'k', text: 'one' });
    await agent.runTurn({ sessionKey: 'j', text: 'two' });
    expect(h.fake.requests.map((r) => r.body.model)).toEqual(['other-model', 'fake-model']);
    await agent.close();
    expect(h.agent().threadSettings('k')).toEqual({ model: 'other-model' });
    expect(h.agent().updateThreadSettings('k', { model: undefined })).toEqual({});
  });

  it('steering: a message taken at a tool-call boundary joins the running turn, after the tool results', async () => {
    h = await harness();
    h.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'echo', arguments: { message: 'a', times: 1 } }] }, { text: 'both done' });
    const agent = h.agent({ registry: registryOf(echoTool()) });
    const waiting = ['also do b'];
    const result = await agent.runTurn({ sessionKey: 'k', text: 'do a', steer: () => waiting.splice(0) });
    expect(result.text).toBe('both done');
    const roles = h.fake.requests[1].body.messages.map((m) => `${m.role}${m.role === 'user' ? `:${String(m.content)}` : ''}`);
    expect(roles).toEqual(['system', 'user:do a', 'assistant', 'tool', 'user:also do b']);
  });
});

describe('pruned outputs and the kernel', () => {
  it('an execute_code output pruned while its kernel lived says the data is there; once the kernel ends it says so', async () => {
    let kernel: 'idle' | 'none' = 'idle';
    const executor: CodeExecutor = {
      execute: async () => ({ status: 'success', output: prose(400, 'numbers'), tool_calls_made: 0, duration_seconds: 0 }),
      resetSession: async () => undefined,
      kernelState: () => kernel,
      close: async () => undefined,
    };
    h = await harness({
      fallback: model((request) => {
        const last = request.body.messages.at(-1)!;
        if (last.role === 'tool') return { text: 'ran' };
        return { toolCalls: [{ name: 'execute_code', arguments: { code: 'print(1)' } }] };
      }),
    });
    const agent = h.agent({ executor, config: { agent: { tools: { enabled: ['execute_code'] } }, model: { context_window: 3000 } } });
    const tools = (request: RecordedRequest) => request.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    for (let i = 1; i <= 12 && !h.fake.requests.some((r) => tools(r).includes(PRUNED_KERNEL_OUTPUT)); i++) {
      await agent.runTurn({ sessionKey: 'k', text: `turn ${i}` });
    }
    expect(h.fake.requests.some((r) => tools(r).includes(PRUNED_KERNEL_OUTPUT))).toBe(true);
    kernel = 'none';
    await agent.runTurn({ sessionKey: 'k', text: 'turn 5' });
    const after = tools(h.fake.requests.at(-2)!);
    expect(after).not.toContain(PRUNED_KERNEL_OUTPUT);
    expect(after).toContain(PRUNED_KERNEL_GONE);
  });
});
