import type { HermesConfig } from '../../config/schema.js';
import type { Logger } from '../../shared/logger.js';
import type { ModelReply, ModelRequest } from '../model-client.js';

/** One endpoint's settings: the model section, or a fallback entry made into one. */
export type EndpointSettings = HermesConfig['model'];

/** What a provider is asked: the request with its model resolved and the attempt's own signal. */
export interface ProviderRequest extends ModelRequest {
  model: string;
  signal: AbortSignal;
}

/**
 * One model API (Chat Completions, Anthropic's Messages) on its official SDK: a request in the
 * loop's shape goes out, the reply comes back in the loop's shape, and a failure is thrown as
 * the SDK threw it (model-failure.ts reads either). Retries, timeouts, key pools and fallbacks
 * are the model client's, above it.
 */
export interface ModelApiProvider {
  send(request: ProviderRequest, apiKey: string | undefined): Promise<ModelReply>;
}

export interface ProviderOptions {
  settings: EndpointSettings;
  logger: Logger;
}
