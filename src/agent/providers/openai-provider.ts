import { APIError } from 'openai';
import { z } from 'zod';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { openAIClient } from '../openai-client.js';
import type { ChatMessage } from '../../sessions/index.js';
import type { ModelReply, ModelUsage, ToolCallRequest } from '../model-client.js';
import { withoutThinking } from './thinking.js';
import { perKey } from './sdk-clients.js';
import type { ModelApiProvider, ProviderOptions, ProviderRequest } from './provider.js';

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
function refusesStreaming(error: unknown): error is APIError {
  if (!(error instanceof APIError) || error.status === undefined) return false;
  if (![400, 404, 405, 415, 422, 501].includes(error.status)) return false;
  return /\bstream(ing)?\b/i.test(error.message) && !/stream_options|include_usage/i.test(error.message);
}

/*
 * What servers send is read as unknown (the SDK's types trust them): these shapes take the
 * fields only when they are what they should be, so a malformed part becomes a problem to report.
 */
const usagePart = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number().optional().catch(undefined),
  // OpenAI's automatic prompt caching: the part of prompt_tokens read from its cache.
  prompt_tokens_details: z.object({ cached_tokens: z.number().optional().catch(undefined) }).nullish().catch(undefined),
});
const functionPart = z.object({ name: z.string().optional().catch(undefined), arguments: z.unknown() });
const callPart = z.object({ id: z.string().catch(''), function: z.unknown() });

/** The usage block of a reply or of a stream's last chunk, when it has numbers. */
export function usageOf(value: unknown): ModelUsage | undefined {
  const usage = usagePart.safeParse(value);
  if (!usage.success) return undefined;
  const cached = usage.data.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: usage.data.prompt_tokens,
    completionTokens: usage.data.completion_tokens ?? 0,
    ...(cached ? { cacheReadTokens: cached } : {}),
  };
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
 * Chat Completions on the openai SDK, for any OpenAI-compatible endpoint. Streams by default
 * (`model.stream`); an endpoint that turns out not to stream, or not to take
 * `stream_options.include_usage`, is asked without it from then on (logged once).
 */
export function openAIProvider(options: ProviderOptions): ModelApiProvider {
  const { settings, logger } = options;
  const clientFor = perKey((apiKey) => openAIClient({ baseUrl: settings.base_url, apiKey, timeoutMs: settings.timeout * 1000 }));
  let usageInStream = true;
  let streams = settings.stream;

  const send = async (request: ProviderRequest, apiKey: string | undefined): Promise<ModelReply> => {
    const client = clientFor(apiKey);
    const maxTokens = request.maxTokens ?? settings.max_tokens;
    const messages: ChatMessage[] = request.messages.map(withoutThinking);
    const body = {
      model: request.model,
      messages,
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      ...(maxTokens !== null ? { max_tokens: maxTokens } : {}),
      ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
    };
    if (streams) {
      // include_usage: the last chunk says what the request cost, which sizes the session's
      // context. A server that refuses the option is asked without it from then on.
      const requestOptions = { signal: request.signal };
      let stream;
      try {
        try {
          stream = usageInStream
            ? await client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, requestOptions)
            : await client.chat.completions.create({ ...body, stream: true }, requestOptions);
        } catch (error) {
          if (!usageInStream || !(error instanceof APIError) || !/stream_options|include_usage/i.test(error.message)) throw error;
          usageInStream = false;
          logger.info('the model server refuses stream_options.include_usage; streamed replies are sized by counting');
          stream = await client.chat.completions.create({ ...body, stream: true }, requestOptions);
        }
      } catch (error) {
        if (!refusesStreaming(error)) throw error;
        streams = false;
        logger.warn({ status: error.status }, `the model server at ${settings.base_url} does not stream (${error.message}); replies from it are asked for whole from now on (model.stream)`);
        return send(request, apiKey);
      }
      const reply = await collectStream(stream, request.onTextDelta);
      if (!reply.empty || request.signal.aborted) return reply.reply;
      // Not one SSE event: the server answered the streamed request with something else (a JSON body).
      streams = false;
      logger.warn(`the model server at ${settings.base_url} answered a streamed request without SSE events; replies from it are asked for whole from now on (model.stream)`);
      return send(request, apiKey);
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
  return { send };
}
