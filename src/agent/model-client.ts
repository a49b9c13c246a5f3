import { APIConnectionTimeoutError } from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { HermesConfig } from '../config/schema.js';
import type { Logger } from '../shared/logger.js';
import type { ChatMessage } from '../sessions/index.js';
import { ModelAbortedError, ModelError, describeModelFailure, isRetryable, noModelConfigured } from './model-errors.js';
import { readFailure } from './model-failure.js';
import { abortText } from '../shared/notices.js';
import { backoffMs, retry, retryAfterMs } from '../shared/retry.js';
import { KeyPool } from './key-pool.js';
import { rateLimitResetAt } from './rate-limit-reset.js';
import type { ThinkingBlock } from './providers/thinking.js';
import type { ModelApiProvider } from './providers/provider.js';
import { openAIProvider } from './providers/openai-provider.js';
import { anthropicProvider } from './providers/anthropic-provider.js';
import { fallbackClient, movesToFallback } from './fallback-client.js';

/** A tool call as the model asked for it; `arguments` is the raw JSON text. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: string;
  /** Set when the call itself was malformed (no function, arguments not text): what the model is told instead of running it. */
  problem?: string;
}

/** Tokens the API says a request took. */
export interface ModelUsage {
  /** Every input token, cached or not (OpenAI's prompt_tokens; Anthropic's input plus cache reads and writes). */
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt tokens, those read from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Of the prompt tokens, those written to the prompt cache (Anthropic's cache_creation_input_tokens). */
  cacheWriteTokens?: number;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ToolCallRequest[];
  finishReason: string | null;
  /** What the API reported; absent when it reported nothing. */
  usage?: ModelUsage;
  /** Anthropic's thinking blocks, which go back with this turn (providers/thinking.ts). */
  thinking?: ThinkingBlock[];
}

export interface ModelRequest {
  messages: ChatMessage[];
  tools: ChatCompletionTool[];
  signal?: AbortSignal;
  /** Hears the reply's text as it streams in (`model.stream: true`); a non-streamed reply is not told piece by piece. */
  onTextDelta?: (delta: string) => void;
  /** Called before a failed request is tried again: what `onTextDelta` heard of it is void. */
  onRetry?: () => void;
  /** Another model than the configured one (a thread's /model). */
  model?: string;
  /** A cap on the reply's tokens for this request (the summary call). */
  maxTokens?: number;
}

/** Which endpoint answered the last request, and why it was not the primary (for /status and the log). */
export interface ModelRoute {
  model: string;
  provider: string;
  /** 0: the primary; n: `model.fallbacks[n - 1]`. */
  entry: number;
  /** Why the primary (and any fallback before this one) was passed over. */
  reason?: string;
}

/** What the loop needs from a model: one completion at a time. */
export interface ModelClient {
  /** The configured model id. */
  readonly model: string;
  /**
   * Asks for the next assistant message. Throws {@link ModelAbortedError} when the signal
   * aborts and `ModelError` (with a message for the user) when the request fails for good.
   */
  complete(request: ModelRequest): Promise<ModelReply>;
  /** Which endpoint answered last; absent where there is only one. */
  route?(): ModelRoute | undefined;
}

export interface ModelClientOptions {
  model: HermesConfig['model'];
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** First backoff delay in ms when the server gives no Retry-After (default 500; doubles, max 8 s). */
  retryBaseMs?: number;
  /** The clock rate-limit resets are measured on (tests inject one). */
  now?: () => number;
}

/** Longest wait a Retry-After header may ask for before we give up waiting and fail. */
const MAX_RETRY_AFTER_MS = 60_000;
/** How long a key rests after a 429 that names no reset. */
const DEFAULT_KEY_REST_MS = 60_000;

/** The server's Retry-After when it gave one, else a jittered backoff from `baseMs` (doubling, max 8 s). */
function retryDelayMs(error: unknown, attempt: number, baseMs: number): number {
  const failure = readFailure(error);
  const asked = failure.kind === 'status' && failure.headers ? retryAfterMs(failure.headers) : undefined;
  if (asked !== undefined) return Math.min(asked, MAX_RETRY_AFTER_MS);
  return backoffMs(attempt, { firstMs: baseMs, maxMs: 8000, jitter: 0.25 });
}

/** The provider for `model.provider`, on its official SDK. */
function providerFor(settings: HermesConfig['model'], logger: Logger): ModelApiProvider {
  return settings.provider === 'anthropic' ? anthropicProvider({ settings, logger }) : openAIProvider({ settings, logger });
}

/**
 * The model client for the settings: one endpoint, or the endpoint with `model.fallbacks`
 * behind it. The loop sees the same client either way, whichever API answers.
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  if (options.model.fallbacks.length > 0) return fallbackClient(options, endpointClient);
  return endpointClient(options);
}

/**
 * A client of one endpoint (either provider) with bounded retries on 408/409/429/5xx and
 * network errors, and its key pool. The SDKs' own retries are off because their backoff
 * sleep ignores the abort signal; ours wakes up as soon as the turn is interrupted.
 * `handsOver`: a failure a fallback takes (429, 5xx, a timeout, a refused connection) is
 * thrown at once instead of retried.
 */
export function endpointClient(options: ModelClientOptions & { handsOver?: boolean }): ModelClient {
  const settings = options.model;
  const env = options.env ?? {};
  const now = options.now ?? Date.now;
  const baseMs = options.retryBaseMs ?? 500;
  const logger = options.logger.child({ model: settings.name });
  const provider = providerFor(settings, logger);
  const keys = new KeyPool(settings.api_key_pool.length > 0 ? settings.api_key_pool : [settings.api_key_env], env, now);
  const deadlineMs = settings.timeout * 1000;

  /** One try with the key `name`; the turn's signal and the deadline end it. */
  const tryWith = async (request: ModelRequest, name: string | undefined): Promise<ModelReply> => {
    if (request.signal?.aborted) throw new ModelAbortedError(abortText(request.signal));
    // A signal per attempt: the SDK leaves a listener on the signal it is given, and one
    // turn makes up to agent.max_iterations requests on the same turn signal.
    const attemptController = new AbortController();
    const forward = () => attemptController.abort(request.signal?.reason);
    request.signal?.addEventListener('abort', forward, { once: true });
    // The SDK's own timeout stops once the headers arrive; this one covers the body too,
    // so a server that stalls mid-reply cannot hold the turn (and its slot) forever.
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      attemptController.abort('model.timeout');
    }, deadlineMs);
    try {
      const reply = await provider.send({ ...request, model: request.model || settings.name, signal: attemptController.signal }, keys.value(name));
      // An aborted stream ends quietly in the SDK: what arrived is not the whole reply.
      if (timedOut) throw new APIConnectionTimeoutError({ message: `no complete reply within ${settings.timeout}s` });
      return reply;
    } catch (caught) {
      if (request.signal?.aborted) throw new ModelAbortedError(abortText(request.signal));
      throw timedOut && readFailure(caught).kind !== 'timeout' ? new APIConnectionTimeoutError({ message: `no complete reply within ${settings.timeout}s` }) : caught;
    } finally {
      clearTimeout(deadline);
      request.signal?.removeEventListener('abort', forward);
    }
  };

  /** One attempt: a key that gets 429 rests until its reset and the next free key of the pool is tried at once. */
  const attemptOnce = async (request: ModelRequest): Promise<ModelReply> => {
    for (;;) {
      const name = keys.pick();
      try {
        return await tryWith(request, name);
      } catch (error) {
        const failure = readFailure(error);
        if (!name || keys.size < 2 || failure.kind !== 'status' || failure.status !== 429) throw error;
        const until = rateLimitResetAt(failure.headers, now()) ?? now() + DEFAULT_KEY_REST_MS;
        keys.rest(name, until);
        if (!keys.hasFreeOtherThan(name)) throw error;
        logger.warn({ key: name, restsUntil: new Date(until).toISOString() }, `the key in ${name} is rate-limited (429); the next key of model.api_key_env takes over`);
        request.onRetry?.();
      }
    }
  };

  return {
    model: settings.name,
    async complete(request) {
      if (!settings.name && !request.model) throw noModelConfigured();
      let tries = 0;
      try {
        return await retry(
          () => {
            tries++;
            return attemptOnce(request);
          },
          {
            retries: settings.max_retries,
            signal: request.signal,
            shouldRetry: (error) => !request.signal?.aborted && isRetryable(error) && !(options.handsOver && movesToFallback(error)),
            delayMs: (error, attempt) => retryDelayMs(error, attempt, baseMs),
            onRetry: (error, attempt, waitMs) => {
              const failure = readFailure(error);
              logger.info({ attempt, waitMs: Math.round(waitMs), status: failure.kind === 'status' ? failure.status : undefined }, 'model request failed; retrying');
              request.onRetry?.();
            },
          },
        );
      } catch (error) {
        if (error instanceof ModelAbortedError || error instanceof ModelError) throw error;
        if (request.signal?.aborted) throw new ModelAbortedError(abortText(request.signal));
        const failure = describeModelFailure(error, { ...settings, name: request.model || settings.name }, tries, env);
        logger.warn({ err: error, attempt: tries }, `model request failed: ${failure.code}`);
        throw failure;
      }
    },
  };
}
