import OpenAI, { APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HermesConfig } from '../config/schema.js';
import type { Logger } from '../shared/logger.js';
import type { ChatMessage } from '../sessions/index.js';
import { ModelAbortedError, describeModelFailure, isRetryable, noModelConfigured } from './model-errors.js';
import { abortText } from './abort.js';

/** A tool call as the model asked for it; `arguments` is the raw JSON text. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: string;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ToolCallRequest[];
  finishReason: string | null;
}

export interface ModelRequest {
  messages: ChatMessage[];
  tools: ChatCompletionTool[];
  signal?: AbortSignal;
  /** Hears the reply's text as it streams in (`model.stream: true`); a non-streamed reply is not told piece by piece. */
  onTextDelta?: (delta: string) => void;
  /** Called before a failed request is tried again: what `onTextDelta` heard of it is void. */
  onRetry?: () => void;
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
}

export interface ModelClientOptions {
  model: HermesConfig['model'];
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** First backoff delay in ms when the server gives no Retry-After (default 500; doubles, max 8 s). */
  retryBaseMs?: number;
}

/** Longest wait a Retry-After header may ask for before we give up waiting and fail. */
const MAX_RETRY_AFTER_MS = 60_000;

function retryDelayMs(error: unknown, attempt: number, baseMs: number): number {
  if (error instanceof APIError && error.headers) {
    const ms = Number.parseFloat(error.headers.get('retry-after-ms') ?? '');
    if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
    const after = error.headers.get('retry-after');
    if (after) {
      const seconds = Number.parseFloat(after);
      const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
      if (Number.isFinite(wait) && wait >= 0) return Math.min(wait, MAX_RETRY_AFTER_MS);
    }
  }
  const backoff = Math.min(baseMs * 2 ** attempt, 8000);
  return backoff * (1 - Math.random() * 0.25);
}

/** Builds the assistant message from SSE chunks, tool call arguments concatenated by index. */
async function collectStream(stream: AsyncIterable<ChatCompletionChunk>, onTextDelta?: (delta: string) => void): Promise<ModelReply> {
  let content = '';
  let sawContent = false;
  let finishReason: string | null = null;
  const calls = new Map<number, ToolCallRequest>();
  for await (const chunk of stream) {
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (typeof choice.delta?.content === 'string') {
      content += choice.delta.content;
      sawContent ||= choice.delta.content.length > 0;
      if (choice.delta.content) onTextDelta?.(choice.delta.content);
    }
    for (const delta of choice.delta?.tool_calls ?? []) {
      const call = calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name += delta.function.name;
      if (delta.function?.arguments) call.arguments += delta.function.arguments;
      calls.set(delta.index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  return { content: sawContent ? content : null, toolCalls, finishReason };
}

/**
 * A Chat Completions client for any OpenAI-compatible endpoint, with bounded retries on
 * 408/409/429/5xx and network errors. The SDK's own retries are off because its backoff
 * sleep ignores the abort signal; ours wakes up as soon as the turn is interrupted.
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const settings = options.model;
  const env = options.env ?? process.env;
  const baseMs = options.retryBaseMs ?? 500;
  // Local servers take any key, and the SDK refuses to start without one.
  const apiKey = env[settings.api_key_env] || 'no-key-set';
  const client = new OpenAI({
    baseURL: settings.base_url,
    apiKey,
    timeout: settings.timeout * 1000,
    maxRetries: 0,
  });
  const logger = options.logger.child({ model: settings.name });
  const deadlineMs = settings.timeout * 1000;

  const once = async (request: ModelRequest): Promise<ModelReply> => {
    const body = {
      model: settings.name,
      messages: request.messages,
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      ...(settings.max_tokens !== null ? { max_tokens: settings.max_tokens } : {}),
      ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
    };
    if (settings.stream) {
      const stream = await client.chat.completions.create({ ...body, stream: true }, { signal: request.signal });
      return collectStream(stream, request.onTextDelta);
    }
    const completion = await client.chat.completions.create({ ...body, stream: false }, { signal: request.signal });
    const choice = completion.choices?.[0];
    if (!choice?.message) throw new Error('the model server answered without a message (no choices)');
    const toolCalls: ToolCallRequest[] = [];
    for (const call of choice.message.tool_calls ?? []) {
      if (call.type === 'function') toolCalls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' });
    }
    return { content: choice.message.content ?? null, toolCalls, finishReason: choice.finish_reason ?? null };
  };

  return {
    model: settings.name,
    async complete(request) {
      if (!settings.name) throw noModelConfigured();
      const attempts = settings.max_retries + 1;
      for (let attempt = 0; ; attempt++) {
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
          const reply = await once({ ...request, signal: attemptController.signal });
          // An aborted stream ends quietly in the SDK: what arrived is not the whole reply.
          if (timedOut) throw new APIConnectionTimeoutError({ message: `no complete reply within ${settings.timeout}s` });
          return reply;
        } catch (caught) {
          clearTimeout(deadline);
          if (request.signal?.aborted) throw new ModelAbortedError(abortText(request.signal));
          const error = timedOut && !(caught instanceof APIConnectionTimeoutError)
            ? new APIConnectionTimeoutError({ message: `no complete reply within ${settings.timeout}s` })
            : caught;
          if (attempt + 1 >= attempts || !isRetryable(error)) {
            const failure = describeModelFailure(error, settings, attempt + 1, env);
            logger.warn({ err: error, attempt: attempt + 1 }, `model request failed: ${failure.code}`);
            throw failure;
          }
          const wait = retryDelayMs(error, attempt, baseMs);
          logger.info({ attempt: attempt + 1, waitMs: Math.round(wait), status: (error as APIError).status }, 'model request failed; retrying');
          request.onRetry?.();
          try {
            await sleep(wait, undefined, { signal: request.signal });
          } catch {
            throw new ModelAbortedError(abortText(request.signal));
          }
        } finally {
          clearTimeout(deadline);
          request.signal?.removeEventListener('abort', forward);
        }
      }
    },
  };
}
