import OpenAI from 'openai';

/** The key sent when none is set: local servers take any, and the SDK refuses to start without one. */
export const NO_KEY = 'no-key-set';

export interface OpenAIClientOptions {
  /** The API root, usually ending in /v1. */
  baseUrl: string;
  /** Empty or absent sends the placeholder. */
  apiKey?: string;
  timeoutMs: number;
}

/**
 * The one way an OpenAI-compatible client is made (the model client, the context-window
 * look-up, setup's and the web form's probes). The SDK's own retries are off everywhere:
 * the model client retries with a backoff that wakes on abort, and a probe should fail fast.
 */
export function openAIClient(options: OpenAIClientOptions): OpenAI {
  return new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey || NO_KEY, maxRetries: 0, timeout: options.timeoutMs });
}
