import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages';
import { NO_KEY } from '../openai-client.js';
import type { ModelReply } from '../model-client.js';
import { anthropicPrompt, anthropicTools, withCacheControl } from './anthropic-messages.js';
import { anthropicReply, collectAnthropicStream } from './anthropic-reply.js';
import { perKey } from './sdk-clients.js';
import type { EndpointSettings, ModelApiProvider, ProviderOptions, ProviderRequest } from './provider.js';

/** Replies' token cap when model.max_tokens is not set: the Messages API requires one. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/**
 * The one way an Anthropic client is made: the key given (a placeholder when none, so the SDK
 * looks up no credentials of its own), the base URL given, the SDK's retries off (the model
 * client retries, waking on abort).
 */
export function anthropicClient(options: { baseUrl: string; apiKey?: string; timeoutMs: number }): Anthropic {
  return new Anthropic({ baseURL: options.baseUrl, apiKey: options.apiKey || NO_KEY, authToken: null, maxRetries: 0, timeout: options.timeoutMs });
}

/** The request body for a turn: the history converted, the tools, caching and thinking as configured. */
export function anthropicBody(settings: EndpointSettings, request: ProviderRequest): MessageCreateParamsBase {
  const converted = anthropicPrompt(request.messages);
  const prompt = settings.prompt_caching ? withCacheControl(converted) : converted;
  const tools = anthropicTools(request.tools);
  const thinking = settings.thinking_budget;
  const asked = request.maxTokens ?? settings.max_tokens;
  // With thinking, max_tokens must be above the budget; a summary call (its own cap) thinks not.
  const thinks = thinking !== null && request.maxTokens === undefined;
  const maxTokens = asked ?? (thinks ? thinking + DEFAULT_ANTHROPIC_MAX_TOKENS : DEFAULT_ANTHROPIC_MAX_TOKENS);
  return {
    model: request.model,
    max_tokens: thinks && maxTokens <= thinking ? thinking + 1024 : maxTokens,
    messages: prompt.messages,
    ...(prompt.system.length > 0 ? { system: prompt.system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    // Temperature other than 1 is refused with thinking on.
    ...(settings.temperature !== null && !thinks ? { temperature: Math.min(settings.temperature, 1) } : {}),
    ...(thinks ? { thinking: { type: 'enabled' as const, budget_tokens: thinking } } : {}),
  };
}

/**
 * Anthropic's Messages API on the official SDK: streamed (`model.stream`) or whole, tool use
 * as `tool_use`/`tool_result` blocks, images, extended thinking kept with its turn, and
 * cache_control breakpoints (`model.prompt_caching`).
 */
export function anthropicProvider(options: ProviderOptions): ModelApiProvider {
  const { settings } = options;
  const clientFor = perKey((apiKey) => anthropicClient({ baseUrl: settings.base_url, apiKey, timeoutMs: settings.timeout * 1000 }));
  return {
    async send(request: ProviderRequest, apiKey: string | undefined): Promise<ModelReply> {
      const client = clientFor(apiKey);
      const body = anthropicBody(settings, request);
      if (settings.stream) {
        const stream = await client.messages.create({ ...body, stream: true }, { signal: request.signal });
        const { reply } = await collectAnthropicStream(stream, request.onTextDelta);
        return reply;
      }
      const message: unknown = await client.messages.create({ ...body, stream: false }, { signal: request.signal });
      return anthropicReply(message);
    },
  };
}
