import { describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness.js';
import { keyOf, startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic-server.js';
import { validateConfig, type HermesConfig } from '../../src/config/index.js';
import { createModelClient } from '../../src/agent/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { freePort } from '../helpers/loopback-server.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';

/*
 * model.fallbacks and key pools: a rate-limited or failing primary hands the request to the
 * next entry at once, rests until its reset (an injected clock), and answers again after it.
 */
let h: Harness;
let anthropic: FakeAnthropic | undefined;
const keep = releaseAfterEach();

/** A clock the test moves. */
function clock(start = Date.parse('2026-12-02T09:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

function modelSettings(model: Record<string, unknown>): HermesConfig['model'] {
  return validateConfig({ model }, 'test').config.model;
}

/** A port nothing listens on (free a moment ago): connections to it are refused. */
const closedPort = freePort;

describe('model.fallbacks', () => {
  it('a 429 with retry-after: 30 is answered by the fallback at once, the next turns too, and by the primary after the reset', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    anthropic = keep(await startFakeAnthropic(), (fake) => fake.close());
    const time = clock();
    const model = modelSettings({
      provider: 'anthropic',
      base_url: anthropic.url,
      name: 'claude-primary',
      max_retries: 3,
      stream: false,
      fallbacks: [{ provider: 'openai', base_url: h.fake.url, model: 'fake-fallback', api_key_env: 'FALLBACK_KEY' }],
    });
    const env = { ANTHROPIC_API_KEY: 'sk-ant', FALLBACK_KEY: 'sk-fallback' };
    const client = createModelClient({ model, logger: silentLogger(), env, now: time.now });
    const agent = h.agent({ modelClient: client, env });
    anthropic.enqueue({ status: 429, message: 'rate limited', headers: { 'retry-after': '30' } });
    h.fake.enqueue({ text: 'from the fallback' }, { text: 'fallback again' });

    const started = Date.now();
    expect((await agent.runTurn({ sessionKey: 'k', text: 'one' })).text).toBe('from the fallback');
    // At once: no retry of the primary, no 30 s wait.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(anthropic.requests).toHaveLength(1);
    expect(h.fake.requests.map((r) => r.body.model)).toEqual(['fake-fallback']);
    expect(agent.describe().answeredBy).toMatch(/^fake-fallback \(fallback 1 of model\.fallbacks: the primary claude-primary was rate-limited \(429\); resting until 2026-12-02T09:00:30\.000Z\)$/);

    time.advance(20_000);
    expect((await agent.runTurn({ sessionKey: 'k', text: 'two' })).text).toBe('fallback again');
    expect(anthropic.requests).toHaveLength(1);

    time.advance(11_000);
    anthropic.enqueue({ text: 'the primary is back' });
    expect((await agent.runTurn({ sessionKey: 'k', text: 'three' })).text).toBe('the primary is back');
    expect(anthropic.requests).toHaveLength(2);
    expect(h.fake.requests).toHaveLength(2);
    expect(agent.describe().answeredBy).toBeUndefined();
    // The fallback's turns are in the history the primary is sent.
    expect(JSON.stringify(anthropic.requests[1].body.messages)).toContain('fallback again');
  });

  it('a 5xx and a refused connection move on too; a 400 does not', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    const port = await closedPort();
    const model = modelSettings({
      base_url: `http://127.0.0.1:${port}/v1`,
      name: 'down-model',
      max_retries: 2,
      stream: false,
      fallbacks: [{ provider: 'openai', base_url: h.fake.url, model: 'up-model', api_key_env: 'K' }],
    });
    const client = createModelClient({ model, logger: silentLogger(), env: { K: 'x' }, retryBaseMs: 1 });
    h.fake.enqueue({ text: 'up' });
    expect((await client.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).content).toBe('up');
    expect(client.route?.()).toMatchObject({ model: 'up-model', entry: 1, reason: expect.stringContaining('refused the connection') });

    const time = clock();
    const both = modelSettings({
      base_url: h.fake.url,
      name: 'primary',
      max_retries: 0,
      stream: false,
      fallbacks: [{ provider: 'openai', base_url: h.fake.url, model: 'second', api_key_env: 'K' }],
    });
    const chain = createModelClient({ model: both, logger: silentLogger(), env: { K: 'x' }, now: time.now });
    h.fake.enqueue({ status: 503, message: 'overloaded' }, { text: 'second answers' });
    expect((await chain.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).content).toBe('second answers');
    time.advance(61_000);
    h.fake.enqueue({ status: 400, message: 'bad request' });
    await expect(chain.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).rejects.toThrow(/refused the request \(400: bad request\)/);
  });
});

describe('a key pool (model.api_key_env as a list)', () => {
  it('a key that gets 429 rests until its reset while the next carries on, and is used again after it', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    anthropic = keep(await startFakeAnthropic({ apiKeys: ['key-a', 'key-b'] }), (fake) => fake.close());
    const time = clock();
    const reset = new Date(time.now() + 60_000).toISOString();
    const model = modelSettings({ provider: 'anthropic', base_url: anthropic.url, name: 'claude-pool', api_key_env: ['POOL_A', 'POOL_B'], max_retries: 0, stream: true });
    expect(model.api_key_pool).toEqual(['POOL_A', 'POOL_B']);
    expect(model.api_key_env).toBe('POOL_A');
    const client = createModelClient({ model, logger: silentLogger(), env: { POOL_A: 'key-a', POOL_B: 'key-b' }, now: time.now });
    let limited = true;
    const answer = () => ({
      respond: (request: { headers: Record<string, string | string[] | undefined> }) =>
        keyOf(request) === 'key-a' && limited
          ? { status: 429, message: 'rate limited', headers: { 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': reset } }
          : { text: `answered with ${keyOf(request)}` },
    });
    anthropic.enqueue(answer(), answer(), answer(), answer());
    const ask = async () => (await client.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).content;
    expect(await ask()).toBe('answered with key-b');
    expect(await ask()).toBe('answered with key-b');
    expect(anthropic.requests.map((r) => keyOf(r))).toEqual(['key-a', 'key-b', 'key-b']);
    limited = false;
    time.advance(61_000);
    expect(await ask()).toBe('answered with key-a');
  });
});
