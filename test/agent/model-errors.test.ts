import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import type { FakeOpenAIOptions, FakeReply } from '../fakes/openai-server.js';
import { harness, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => h?.cleanup());

/** One 'hello' turn on `model` settings against a fake model started with `fake`, which answers `replies` first. */
async function helloTurn(fake: FakeOpenAIOptions, model: ConfigOverrides['model'], sessionKey: string, replies: FakeReply[] = []): Promise<Awaited<ReturnType<Agent['runTurn']>>> {
  h = await harness(fake);
  h.fake.enqueue(...replies);
  return h.agent({ config: { model } }).runTurn({ sessionKey, text: 'hello' });
}

describe('model failures reach the user as a reply that says what to fix', () => {
  it('a 401 says the key was refused and names the variable to set', async () => {
    const result = await helloTurn({ apiKey: 'the-right-key' }, { api_key_env: 'HERMES_TEST_NO_SUCH_KEY' }, 'test:401');
    expect(result.status).toBe('error');
    expect(result.text).toContain('refused the key (401');
    expect(result.text).toContain('Set HERMES_TEST_NO_SUCH_KEY');
    expect(h.fake.requests).toHaveLength(1);
    // Local servers work without a key: a placeholder is sent rather than none.
    expect(h.fake.requests[0].headers.authorization).toMatch(/^Bearer \S+/);
  });

  it('sends the key from the variable named by model.api_key_env', async () => {
    h = await harness({ apiKey: 'the-right-key' });
    h.fake.enqueue({ text: 'hi' });
    const agent = h.agent({ config: { model: { api_key_env: 'HERMES_TEST_KEY' } }, env: { ...process.env, HERMES_TEST_KEY: 'the-right-key' } });
    const result = await agent.runTurn({ sessionKey: 'test:key', text: 'hello' });
    expect(result).toEqual({ status: 'completed', text: 'hi' });
  });

  it('a 404 for an unknown model names the model and the key to change', async () => {
    const result = await helloTurn({ models: ['real-model'] }, { name: 'no-such-model' }, 'test:404');
    expect(result.status).toBe('error');
    expect(result.text).toContain('does not know the model "no-such-model" (404');
    expect(result.text).toContain('model.name');
  });

  it('a 400 refusal is explained, not retried', async () => {
    const result = await helloTurn({}, { max_retries: 3 }, 'test:400', [{ status: 400, message: 'Invalid value for temperature: 3 is above 2', type: 'invalid_request_error' }]);
    expect(result.status).toBe('error');
    expect(result.text).toContain('refused the request (400: Invalid value for temperature');
    expect(h.fake.requests).toHaveLength(1);
  });

  it('a context-length 400 with nothing to compact says so with the way out, after one more try at most', async () => {
    const result = await helloTurn({}, { max_retries: 3 }, 'test:400', [{ status: 400, message: "This model's maximum context length is 8192 tokens", type: 'invalid_request_error', code: 'context_length_exceeded' }]);
    expect(result.status).toBe('error');
    expect(result.text).toContain('refused the request as too long for the model\'s context window (400: This model');
    expect(result.text).toContain('/new');
    expect(h.fake.requests).toHaveLength(1);
  });

  it('a 429 followed by success is retried and the turn completes', async () => {
    const result = await helloTurn({}, { max_retries: 2 }, 'test:429', [{ status: 429, message: 'Rate limit reached', headers: { 'retry-after-ms': '20' } }, { text: 'after the wait' }]);
    expect(result).toEqual({ status: 'completed', text: 'after the wait' });
    expect(h.fake.requests).toHaveLength(2);
    expect(h.fake.requests[1].body.messages).toEqual(h.fake.requests[0].body.messages);
  });

  it('repeated 500s give up after model.max_retries and say so', async () => {
    const result = await helloTurn({ fallback: { status: 500, message: 'upstream exploded', headers: { 'retry-after-ms': '5' } } }, { max_retries: 2 }, 'test:500');
    expect(result.status).toBe('error');
    expect(result.text).toContain('failed with 500 after 3 attempts');
    expect(result.text).toContain('upstream exploded');
    expect(h.fake.requests).toHaveLength(3);
  });

  it('backs off without Retry-After and still answers', async () => {
    const result = await helloTurn({}, { max_retries: 1 }, 'test:503', [{ status: 503, message: 'overloaded' }, { text: 'ok' }]);
    expect(result).toEqual({ status: 'completed', text: 'ok' });
  });

  it('an unreachable server is reported with the base_url to check', async () => {
    const result = await helloTurn({}, { base_url: 'http://127.0.0.1:9/v1', max_retries: 1 }, 'test:down');
    expect(result.status).toBe('error');
    expect(result.text).toContain('cannot reach the model API at http://127.0.0.1:9/v1');
    expect(result.text).toContain('model.base_url');
  });

  it('a server slower than model.timeout is reported with the setting to raise', async () => {
    const result = await helloTurn({ fallback: { hang: true } }, { timeout: 0.3, max_retries: 1 }, 'test:slow');
    expect(result.status).toBe('error');
    expect(result.text).toContain('did not answer within 0.3s after 2 attempts');
    expect(result.text).toContain('model.timeout');
    expect(h.fake.requests).toHaveLength(2);
  });

  it('an empty model.name answers that no model is configured, with example settings', async () => {
    const result = await helloTurn({}, { name: '' }, 'test:none');
    expect(result.status).toBe('error');
    expect(result.text).toContain('No model is configured');
    expect(result.text).toContain('base_url:');
    expect(h.fake.requests).toHaveLength(0);
  });

  it('an interrupt during the backoff wait ends the turn at once', async () => {
    h = await harness({ fallback: { status: 429, message: 'slow down', headers: { 'retry-after': '30' } } });
    const agent = h.agent({ config: { model: { max_retries: 5 } } });
    const controller = new AbortController();
    const turn = agent.runTurn({ sessionKey: 'test:abort-backoff', text: 'hello', signal: controller.signal });
    await h.fake.waitForRequests(1);
    controller.abort('user sent a new message');
    const result = await turn;
    expect(result.status).toBe('interrupted');
    expect(h.fake.requests).toHaveLength(1);
  });
});
