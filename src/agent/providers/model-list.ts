import type { ModelApi } from '../../config/schema.js';
import { openAIClient } from '../openai-client.js';
import { anthropicClient } from './anthropic-provider.js';

/** The model ids an endpoint lists, and the context windows it states. */
export interface ListedModels {
  ids: string[];
  windows: Map<string, number>;
}

/** The fields model lists use for the context size: Anthropic, OpenRouter, vLLM, LM Studio, Groq, llama.cpp. */
function windowOf(entry: unknown): number | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const fields = Object.fromEntries(Object.entries(entry));
  const nested = (value: unknown, key: string): unknown =>
    typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value))[key] : undefined;
  const candidates = [
    fields.max_input_tokens,
    fields.context_length,
    fields.max_model_len,
    fields.context_window,
    fields.max_context_length,
    nested(fields.top_provider, 'context_length'),
    nested(fields.meta, 'n_ctx'),
    nested(fields.meta, 'n_ctx_train'),
  ];
  for (const value of candidates) if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  return undefined;
}

/**
 * GET <base>/models of either API (OpenAI's list, Anthropic's /v1/models), through the
 * provider's SDK, at most `limit` entries.
 */
export async function listModelsOf(options: { api: ModelApi; baseUrl: string; apiKey?: string; timeoutMs: number; signal?: AbortSignal; limit?: number }): Promise<ListedModels> {
  const limit = options.limit ?? 5000;
  const ids: string[] = [];
  const windows = new Map<string, number>();
  const add = (id: string, entry: unknown) => {
    ids.push(id);
    const tokens = windowOf(entry);
    if (tokens !== undefined) windows.set(id, tokens);
  };
  const requestOptions = options.signal ? { signal: options.signal } : {};
  if (options.api === 'anthropic') {
    const client = anthropicClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs });
    for await (const entry of client.models.list({}, requestOptions)) {
      add(entry.id, entry);
      if (ids.length >= limit) break;
    }
  } else {
    const client = openAIClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs });
    for await (const entry of client.models.list(requestOptions)) {
      add(entry.id, entry);
      if (ids.length >= limit) break;
    }
  }
  return { ids, windows };
}
