import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_KEY, openAIClient } from '../../src/agent/openai-client.js';
import { usageOf } from '../../src/agent/providers/openai-provider.js';
import { MODEL_PROVIDERS, isModelProvider } from '../../src/agent/model-providers.js';
import { PROVIDERS } from '../../adapters/web/settings.js';
import { MODEL_PROVIDERS as SETUP_PROVIDERS } from '../../src/cli/setup/model-step.js';

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A /v1/models endpoint on loopback that answers `status` and records each request's headers. */
async function modelsEndpoint(status: number): Promise<{ baseUrl: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(status === 200 ? JSON.stringify({ object: 'list', data: [{ id: 'm1', object: 'model' }] }) : JSON.stringify({ error: { message: 'down' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

describe('openAIClient (the one factory)', () => {
  it('sends the placeholder key when none is set, and the key when one is', async () => {
    const endpoint = await modelsEndpoint(200);
    for await (const _ of openAIClient({ baseUrl: endpoint.baseUrl, apiKey: '', timeoutMs: 5000 }).models.list()) void _;
    for await (const _ of openAIClient({ baseUrl: endpoint.baseUrl, apiKey: 'sk-test', timeoutMs: 5000 }).models.list()) void _;
    expect(endpoint.seen.map((headers) => headers.authorization)).toEqual([`Bearer ${NO_KEY}`, 'Bearer sk-test']);
  });

  it('does not retry on its own: a 500 is one request', async () => {
    const endpoint = await modelsEndpoint(500);
    await expect(openAIClient({ baseUrl: endpoint.baseUrl, timeoutMs: 5000 }).models.list()).rejects.toThrow();
    expect(endpoint.seen).toHaveLength(1);
  });
});

describe('one provider table', () => {
  it('setup and the web form offer the same providers with the same key variables', () => {
    expect(PROVIDERS).toBe(MODEL_PROVIDERS);
    expect(SETUP_PROVIDERS).toBe(MODEL_PROVIDERS);
    expect(Object.fromEntries(Object.entries(MODEL_PROVIDERS).map(([id, p]) => [id, p.apiKeyEnv]))).toEqual({
      openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', openrouter: 'OPENROUTER_API_KEY', ollama: 'OLLAMA_API_KEY', custom: 'MODEL_API_KEY',
    });
    expect(isModelProvider('ollama')).toBe(true);
    expect(isModelProvider('toString')).toBe(false);
    expect(isModelProvider(3)).toBe(false);
  });
});

describe('OpenAI usage', () => {
  it('the part of the prompt read from the automatic cache (prompt_tokens_details.cached_tokens) is counted as a cache read', () => {
    expect(usageOf({ prompt_tokens: 1200, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 1024 } })).toEqual({ promptTokens: 1200, completionTokens: 30, cacheReadTokens: 1024 });
    expect(usageOf({ prompt_tokens: 1200, completion_tokens: 30, prompt_tokens_details: null })).toEqual({ promptTokens: 1200, completionTokens: 30 });
    expect(usageOf({ prompt_tokens: 'many' })).toBeUndefined();
  });
});
