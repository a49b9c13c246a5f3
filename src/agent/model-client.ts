import { APIConnectionTimeoutError, APIError } from 'openai';
import { z } from 'zod';
import { openAIClient } from './openai-client.js';
import type { ChatCompletionChunk, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { HermesConfig } from '../config/schema.js';
import type { Logger } from '../shared/logger.js';
import type { ChatMessage } from '../sessions/index.js';
import { ModelAbortedError, describeModelFailure, isRetryable, noModelConfigured } from './model-errors.js';
import { abortText } from '../shared/notices.js';
import { backoffMs, retry, retryAfterMs } from '../shared/retry.js';

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
  promptTokens: number;
  completionTokens: number;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ToolCallRequest[];
  finishReason: string | null;
  /** What the API reported; absent when it reported nothing. */
  usage?: ModelUsage;
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

/** The server's Retry-After when it gave one, else a jittered backoff from `baseMs` (doubling, max 8 s). */
function retryDelayMs(error: unknown, attempt: number, baseMs: number): number {
  const asked = error instanceof APIError && error.headers ? retryAfterMs(error.headers) : undefined;
  if (asked !== undefined) return Math.min(asked, MAX_RETRY_AFTER_MS);
  return backoffMs(attempt, { firstMs: baseMs, maxMs: 8000, jitter: 0.25 });
}

/** Builds the assistant message from SSE chunks, tool call arguments concatenated by index. */
async function collectStream(stream: AsyncIterable<ChatCompletionChunk>, onTextDelta?: (delta: string) => void): Promise<{ reply: ModelReply; empty: boolean }> {
  let chunks = 0;
  let content = '';
  let sawContent = false;
  let finishReason: string | null = null;
  let usage: ModelUsage | undefined;
  const calls = new Map<number, ToolCallRequest>();
  for await (const chunk of stream) {
    chunks++;
    usage = usageOf(chunk.usage) ?? usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (typeof choice.delta?.content === 'string') {
      content += choice.delta.content;
      sawContent ||= choice.delta.content.length > 0;
      if (choice.delta.content) onTextDelta?.(choice.delta.content);
    }
    for (const delta of choice.delta?.tool_calls ?? []) {
      const call = calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
      if (typeof delta.id === 'string' && delta.id) call.id = delta.id;
      const fn = functionPart.safeParse(delta.function);
      if (fn.success) {
        const { name, arguments: args } = fn.data;
        if (name !== undefined) call.name += name;
        if (typeof args === 'string') call.arguments += args;
        else if (args !== undefined && args !== null) call.problem = argumentsProblem(call.name, args);
      }
      calls.set(delta.index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => (call.name || call.problem ? call : { ...call, problem: noFunctionProblem(call.id, undefined) }));
  return { reply: { content: sawContent ? content : null, toolCalls, finishReason, ...(usage ? { usage } : {}) }, empty: chunks === 0 };
}

/** A streamed request refused because the endpoint does not stream (not a failure of the request itself). */
function refusesStreaming(error: unknown): boolean {
  if (!(error instanceof APIError) || error.status === undefined) return false;
  if (![400, 404, 405, 415, 422, 501].includes(error.status)) return false;
  return /\bstream(ing)?\b/i.test(error.message) && !/stream_options|include_usage/i.test(error.message);
}

/*
 * What servers send is read as unknown (the SDK's types trust them): these shapes take the
 * fields only when they are what they should be, so a malformed part becomes a problem to report.
 */
const usagePart = z.object({ prompt_tokens: z.number(), completion_tokens: z.number().optional().catch(undefined) });
const functionPart = z.object({ name: z.string().optional().catch(undefined), arguments: z.unknown() });
const callPart = z.object({ id: z.string().catch(''), function: z.unknown() });

/** The usage block of a reply or of a stream's last chunk, when it has numbers. */
function usageOf(value: unknown): ModelUsage | undefined {
  const usage = usagePart.safeParse(value);
  return usage.success ? { promptTokens: usage.data.prompt_tokens, completionTokens: usage.data.completion_tokens ?? 0 } : undefined;
}

const CALL_SHAPE = 'Send each tool call as {"type": "function", "function": {"name": "<tool name>", "arguments": "<the arguments as one JSON object, written as text>"}}.';

function noFunctionProblem(id: string, fn: unknown): string {
  const got = fn === undefined ? 'no function' : `function: ${JSON.stringify(fn)?.slice(0, 80) ?? String(fn)}`;
  return `Invalid tool call${id ? ` ${id}` : ''}: it names no tool (${got}). ${CALL_SHAPE}`;
}

function argumentsProblem(name: string, args: unknown): string {
  const kind = Array.isArray(args) ? 'a list' : typeof args === 'object' ? 'an object' : typeof args;
  return `Invalid tool call of ${name || 'a tool'}: its arguments came as ${kind}, not as text. ${CALL_SHAPE}`;
}

/** One tool call of a non-streamed reply, whatever shape it came in; a malformed one carries its problem. */
export function readToolCall(raw: unknown, index: number): ToolCallRequest {
  const call = callPart.safeParse(raw);
  if (!call.success) return { id: '', name: '', arguments: '', problem: `Invalid tool call #${index + 1}: not an object. ${CALL_SHAPE}` };
  const { id, function: fn } = call.data;
  const part = functionPart.safeParse(fn);
  const name = part.success ? (part.data.name ?? '') : '';
  if (!part.success || !name) return { id, name: '', arguments: '', problem: noFunctionProblem(id, fn) };
  const args = part.data.arguments;
  if (args === undefined || args === null) return { id, name, arguments: '' };
  if (typeof args !== 'string') {
    let text = '';
    try {
      text = JSON.stringify(args) ?? '';
    } catch {
      // left empty: the problem says what came
    }
    return { id, name, arguments: text, problem: argumentsProblem(name, args) };
  }
  return { id, name, arguments: args };
}



/**
 * A Chat Completions client for any OpenAI-compatible endpoint, with bounded retries on
 * 408/409/429/5xx and network errors. The SDK's own retries are off because its backoff
 * sleep ignores the abort signal; ours wakes up as soon as the turn is interrupted.
 */
export function createModelClient(options: ModelClientOptions): ModelClient {
  const settings = options.model;
  const env = options.env ?? {};
  const baseMs = options.retryBaseMs ?? 500;
  const client = openAIClient({ baseUrl: settings.base_url, apiKey: env[settings.api_key_env], timeoutMs: settings.timeout * 1000 });
  const logger = options.logger.child({ model: settings.name });
  let usageInStream = true;
  // model.stream is on by default; an endpoint that turns out not to stream is asked without it from then on.
  let streams = settings.stream;
  const deadlineMs = settings.timeout * 1000;

  const once = async (request: ModelRequest): Promise<ModelReply> => {
    const maxTokens = request.maxTokens ?? settings.max_tokens;
    const body = {
      model: request.model || settings.name,
      messages: request.messages,
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      ...(maxTokens !== null ? { max_tokens: maxTokens } : {}),
      ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
    };
    if (streams) {
      // include_usage: the last chunk says what the request cost, which sizes the session's
      // context. A server that refuses the option is asked without it from then on.
      const options = { signal: request.signal };
      let stream;
      try {
        try {
          stream = usageInStream
            ? await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options)
            : await client.chat.completions.create({ ...body, stream: true }, options);
        } catch (error) {
          if (!usageInStream || !(error instanceof APIError) || !/stream_options|include_usage/i.test(error.message)) throw error;
          usageInStream = false;
          logger.info('the model server refuses stream_options.include_usage; streamed replies are sized by counting');
          stream = await client.chat.completions.create({ ...body, stream: true }, options);
        }
      } catch (error) {
        if (!refusesStreaming(error)) throw error;
        streams = false;
        logger.warn({ status: (error as APIError).status }, `the model server at ${settings.base_url} does not stream (${(error as APIError).message}); replies from it are asked for whole from now on (model.stream)`);
        return once(request);
      }
      const reply = await collectStream(stream, request.onTextDelta);
      if (!reply.empty || request.signal?.aborted) return reply.reply;
      // Not one SSE event: the server answered the streamed request with something else (a JSON body).
      streams = false;
      logger.warn(`the model server at ${settings.base_url} answered a streamed request without SSE events; replies from it are asked for whole from now on (model.stream)`);
      return once(request);
    }
    const completion = await client.chat.completions.create({ ...body, stream: false }, { signal: request.signal });
    const choice = completion.choices?.[0];
    if (!choice?.message) throw new Error('the model server answered without a message (no choices)');
    // The SDK's types trust the server; what arrives is read as unknown, so a malformed call becomes a problem to report.
    const rawCalls: unknown = choice.message.tool_calls;
    const toolCalls = Array.isArray(rawCalls) ? rawCalls.map((call: unknown, index) => readToolCall(call, index)) : [];
    const usage = usageOf(completion.usage);
    return { content: choice.message.content ?? null, toolCalls, finishReason: choice.finish_reason ?? null, ...(usage ? { usage } : {}) };
  };

  return {
    model: settings.name,
    async complete(request) {
      if (!settings.name && !request.model) throw noModelConfigured();
      let tries = 0;
      const attemptOnce = async (): Promise<ModelReply> => {
        tries++;
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
          if (request.signal?.aborted) throw new ModelAbortedError(abortText(request.signal));
          throw timedOut && !(caught instanceof APIConnectionTimeoutError)
            ? new APIConnectionTimeoutError({ message: `no complete reply within ${settings.timeout}s` })
            : caught;
        } finally {
          clearTimeout(deadline);
          request.signal?.removeEventListener('abort', forward);
        }
      };
      try {
        return await retry(attemptOnce, {
          retries: settings.max_retries,
          signal: request.signal,
          shouldRetry: (error) => !request.signal?.aborted && isRetryable(error),
          delayMs: (error, attempt) => retryDelayMs(error, attempt, baseMs),
          onRetry: (error, attempt, waitMs) => {
            logger.info({ attempt, waitMs: Math.round(waitMs), status: error instanceof APIError ? error.status : undefined }, 'model request failed; retrying');
            request.onRetry?.();
          },
        });
      } catch (error) {
        if (error instanceof ModelAbortedError) throw error;
        if (request.signal?.aborted) throw new ModelAbortedError(abortText(request.signal));
        const failure = describeModelFailure(error, { ...settings, name: request.model || settings.name }, tries, env);
        logger.warn({ err: error, attempt: tries }, `model request failed: ${failure.code}`);
        throw failure;
      }
    },
  };
}
