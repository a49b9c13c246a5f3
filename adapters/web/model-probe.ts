import type OpenAI from 'openai';
import { openAIClient } from '../../src/agent/openai-client.js';
import { errorMessage } from '../../src/shared/errors.js';
import type { ModelApi } from '../../src/config/schema.js';
import { listModelsOf } from '../../src/agent/providers/model-list.js';
import { anthropicClient } from '../../src/agent/providers/anthropic-provider.js';

/** How long the page's look-ups may take: the form waits for them. */
const PROBE_TIMEOUT_MS = 20_000;

export interface Endpoint {
  /** The API it speaks (model.provider); OpenAI-compatible when absent. */
  api?: ModelApi;
  baseUrl: string;
  /** The key to send; empty sends a placeholder (local servers take any). */
  apiKey: string;
}

function client(endpoint: Endpoint): OpenAI {
  return openAIClient({ baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey, timeoutMs: PROBE_TIMEOUT_MS });
}

/** What went wrong, in the endpoint's words, with the key cut out should a server echo it. */
export function probeError(error: unknown, endpoint: Endpoint): string {
  const text = errorMessage(error);
  return endpoint.apiKey ? text.split(endpoint.apiKey).join('[key]') : text;
}

/** The model ids the endpoint lists (`GET <base>/models`), sorted. */
export async function listModels(endpoint: Endpoint): Promise<string[]> {
  const { ids } = await listModelsOf({ api: endpoint.api ?? 'openai', baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey, timeoutMs: PROBE_TIMEOUT_MS });
  return ids.sort((a, b) => a.localeCompare(b));
}

/** One short chat request: proves the endpoint, the key and the model together. Returns what the model said. */
export async function testCall(endpoint: Endpoint, model: string): Promise<string> {
  if (endpoint.api === 'anthropic') {
    const anthropic = anthropicClient({ baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey, timeoutMs: PROBE_TIMEOUT_MS });
    const message = await anthropic.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'Reply with the single word OK.' }] });
    const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    return text.trim().slice(0, 200);
  }
  const completion = await client(endpoint).chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
    max_tokens: 16,
    stream: false,
  });
  const text = completion.choices?.[0]?.message?.content;
  if (typeof text !== 'string') throw new Error('the endpoint answered without a message (no choices)');
  return text.trim().slice(0, 200);
}
