import { describe, expect, it } from 'vitest';
import { echoTool, harness, registryOf, type Harness } from './harness.js';
import { keyOf, startFakeAnthropic, type AnthropicRequestBody, type FakeAnthropic } from '../fakes/anthropic-server.js';
import type { AgentEvent } from '../../src/agent/index.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';

/*
 * The Anthropic provider through the real agent loop and the official SDK, against the fake
 * Messages API: tool use, thinking kept with its turn, cache_control, errors, usage.
 */
let h: Harness;
let anthropic: FakeAnthropic | undefined;
const keep = releaseAfterEach();

const KEY = 'sk-ant-fake';
const env = { ANTHROPIC_API_KEY: KEY };

async function setUp(model: Record<string, unknown> = {}) {
  h = keep(await harness(), (made) => made.cleanup());
  anthropic = keep(await startFakeAnthropic({ apiKeys: [KEY] }), (fake) => fake.close());
  const agent = h.agent({
    config: { model: { provider: 'anthropic', base_url: anthropic.url, api_key_env: 'ANTHROPIC_API_KEY', name: 'claude-test', stream: true, ...model } },
    registry: registryOf(echoTool()),
    env,
  });
  return { agent, fake: anthropic };
}

/** Every cache_control mark of a request, where it sits. */
function marks(body: AnthropicRequestBody): string[] {
  const out: string[] = [];
  const system = Array.isArray(body.system) ? body.system : [];
  system.forEach((block, i) => block.cache_control && out.push(`system[${i}]`));
  (body.tools ?? []).forEach((tool, i) => tool.cache_control && out.push(`tools[${i}]`));
  body.messages.forEach((message, m) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, b) => block.cache_control && out.push(`messages[${m}].content[${b}]`));
  });
  return out;
}

describe('the Anthropic provider', () => {
  it('a streamed tool_use turn: the input arrives as input_json_delta, runs, and goes back as a tool_result; the text streams', async () => {
    const { agent, fake } = await setUp();
    fake.enqueue({ toolCalls: [{ id: 'toolu_1', name: 'echo', input: { message: 'hi', times: 2 } }] }, { text: 'It said hi hi.' });
    const events: AgentEvent[] = [];
    const result = await agent.runTurn({ sessionKey: 'k', text: 'echo hi twice', onEvent: (event) => events.push(event) });
    expect(result).toEqual({ status: 'completed', text: 'It said hi hi.' });
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests.map((r) => r.body);
    expect(keyOf(fake.requests[0])).toBe(KEY);
    expect(fake.requests[0].headers['anthropic-version']).toBeTruthy();
    expect(first.stream).toBe(true);
    expect(first.tools?.map((tool) => tool.name)).toContain('echo');
    expect(first.tools?.find((tool) => tool.name === 'echo')?.input_schema).toMatchObject({ type: 'object' });
    expect(first.messages).toEqual([{ role: 'user', content: [expect.objectContaining({ type: 'text', text: 'echo hi twice' })] }]);
    const assistant = second.messages[1];
    expect(assistant.role).toBe('assistant');
    expect(assistant.content).toEqual([expect.objectContaining({ type: 'tool_use', id: 'toolu_1', name: 'echo', input: { message: 'hi', times: 2 } })]);
    const results = second.messages[2];
    expect(results.role).toBe('user');
    expect(results.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('hi hi') })]);
    expect(events.filter((e) => e.type === 'tool_finished').map((e) => e.type === 'tool_finished' && e.name)).toEqual(['echo']);
    const deltas = events.filter((e) => e.type === 'text_delta').map((e) => (e.type === 'text_delta' ? e.delta : ''));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('It said hi hi.');
  });

  it('a thinking block with its signature goes back unchanged with its turn, in the next request and the next turn, and after a restart', async () => {
    const { agent, fake } = await setUp({ thinking_budget: 2048 });
    const thinking = { thinking: 'The user wants an echo; call the tool.', signature: 'c2lnbmF0dXJlLW9mLXRoZS10aGlua2luZw==' };
    fake.enqueue({ thinking, toolCalls: [{ id: 'toolu_t', name: 'echo', input: { message: 'x', times: 1 } }] }, { text: 'done' }, { text: 'second turn' }, { text: 'after restart' });
    await agent.runTurn({ sessionKey: 'k', text: 'go' });
    expect(fake.requests[0].body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(fake.requests[0].body.max_tokens).toBeGreaterThan(2048);
    const expected = [{ type: 'thinking', ...thinking }, expect.objectContaining({ type: 'tool_use', id: 'toolu_t' })];
    expect(fake.requests[1].body.messages[1].content).toEqual(expected);
    await agent.runTurn({ sessionKey: 'k', text: 'again' });
    expect(fake.requests[2].body.messages[1].content).toEqual(expected);
    await agent.close();
    // A new agent reads the session back from state.db: the block is still there.
    const again = h.agent({ config: { model: { provider: 'anthropic', base_url: fake.url, name: 'claude-test', thinking_budget: 2048 } }, registry: registryOf(echoTool()), env });
    await again.runTurn({ sessionKey: 'k', text: 'third' });
    expect(fake.requests[3].body.messages[1].content).toEqual(expected);
  });

  it('cache_control marks the system prompt and the latest turns (at most four), and /usage counts cache reads and writes', async () => {
    const { agent, fake } = await setUp();
    fake.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
    for (const text of ['first', 'second', 'third']) await agent.runTurn({ sessionKey: 'k', text });
    for (const request of fake.requests) {
      const where = marks(request.body);
      expect(where.length).toBeLessThanOrEqual(4);
      expect(where[0]).toBe(`system[${(request.body.system as unknown[]).length - 1}]`);
      expect(where).toContain(`messages[${request.body.messages.length - 1}].content[0]`);
    }
    expect(marks(fake.requests[2].body)).toHaveLength(4);
    // The second request starts with what the first cached.
    expect(fake.requests[1].usage?.cache_read_input_tokens).toBeGreaterThan(0);
    const usage = await agent.usage('k');
    expect(usage?.lastTurn?.cacheReadTokens).toBe(fake.requests[2].usage?.cache_read_input_tokens);
    expect(usage?.session.cacheReadTokens).toBe(fake.requests.reduce((sum, r) => sum + (r.usage?.cache_read_input_tokens ?? 0), 0));
    expect(usage?.session.cacheWriteTokens).toBe(fake.requests.reduce((sum, r) => sum + (r.usage?.cache_creation_input_tokens ?? 0), 0));
    // Prompt tokens are all of the input, cached or not.
    const last = fake.requests[2].usage!;
    expect(usage?.lastTurn?.promptTokens).toBe(last.input_tokens + last.cache_read_input_tokens + last.cache_creation_input_tokens);
  });

  it('with model.prompt_caching off no block is marked', async () => {
    const { agent, fake } = await setUp({ prompt_caching: false, stream: false });
    fake.enqueue({ text: 'whole reply' });
    expect((await agent.runTurn({ sessionKey: 'k', text: 'hi' })).text).toBe('whole reply');
    expect(fake.requests[0].body.stream).toBeFalsy();
    expect(marks(fake.requests[0].body)).toEqual([]);
  });

  it('errors read as today: a refused key names ANTHROPIC_API_KEY, a 429 says it is rate-limited, max_tokens says the reply was cut', async () => {
    const { agent, fake } = await setUp();
    fake.enqueue({ status: 401, message: 'invalid x-api-key' });
    expect((await agent.runTurn({ sessionKey: 'a', text: 'hi' })).text).toMatch(/refused the key \(401: invalid x-api-key\)\. Check that ANTHROPIC_API_KEY holds a valid key/);
    fake.enqueue({ status: 429, message: 'Number of request tokens has exceeded your rate limit', headers: { 'retry-after': '0' } });
    expect((await agent.runTurn({ sessionKey: 'b', text: 'hi' })).text).toMatch(/is rate-limiting requests \(429: Number of request tokens/);
    fake.enqueue({ text: 'a long answ', stopReason: 'max_tokens' });
    expect((await agent.runTurn({ sessionKey: 'c', text: 'hi' })).text).toMatch(/^a long answ\n\n\[The reply was cut off at the token limit/);
  });

  it('an overloaded_error sent in the middle of a stream is retried like a 529', async () => {
    const { agent, fake } = await setUp({ max_retries: 1 });
    fake.enqueue({ streamError: 'overloaded_error' }, { text: 'after the retry' });
    expect((await agent.runTurn({ sessionKey: 'k', text: 'hi' })).text).toBe('after the retry');
    expect(fake.requests).toHaveLength(2);
    fake.enqueue({ streamError: 'overloaded_error' }, { streamError: 'overloaded_error' });
    expect((await agent.runTurn({ sessionKey: 'j', text: 'hi' })).text).toMatch(/failed with 529 after 2 attempts \(Overloaded\)/);
  });

  it('/compress summarises older turns through the Messages API, and the next turn starts with the summary', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    anthropic = keep(await startFakeAnthropic({ apiKeys: [KEY], fallback: { text: 'noted' } }), (fake) => fake.close());
    const agent = h.agent({
      config: { model: { provider: 'anthropic', base_url: anthropic.url, name: 'claude-test', stream: true }, compression: { keep_last_turns: 1 }, agent: { tools: { enabled: [] } } },
      env,
    });
    for (let i = 1; i <= 4; i++) await agent.runTurn({ sessionKey: 'k', text: `message ${i}` });
    anthropic.enqueue({ text: 'The person sent messages 1 to 3.' });
    expect((await agent.compress('k')).compacted).toBe(true);
    const summary = anthropic.requests[4].body;
    expect(summary.tools).toBeUndefined();
    expect(JSON.stringify(summary.messages)).toContain('message 1');
    await agent.runTurn({ sessionKey: 'k', text: 'after' });
    const first = anthropic.requests.at(-1)!.body.messages[0];
    expect(JSON.stringify(first)).toMatch(/Summary of the earlier conversation[^"]*/);
    expect(JSON.stringify(first)).toContain('The person sent messages 1 to 3.');
  });

  it('an image part goes as a base64 image block', async () => {
    const { agent, fake } = await setUp({ vision: true });
    fake.enqueue({ text: 'a red pixel' });
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
    await agent.runTurn({ sessionKey: 'k', text: 'what is this?', images: [{ mimeType: 'image/png', data: png }] });
    expect(fake.requests[0].body.messages[0].content).toEqual([
      expect.objectContaining({ type: 'text', text: 'what is this?' }),
      expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } }),
    ]);
  });
});
