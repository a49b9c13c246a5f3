import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contextLengthError, replyTokens, requestTokens } from './token-counts.js';
import { RequestLog, type ScriptedFake } from './scripted-fake.js';

/**
 * A fake OpenAI-compatible Chat Completions server on 127.0.0.1 for tests: it plays
 * scripted responses in order (text, tool_calls, errors), streamed as SSE chunks or as
 * one JSON body, and records every request so a test can read what the client sent.
 */

export interface FakeToolCall {
  id?: string;
  name: string;
  /** A string is sent as is (so tests can send malformed JSON); an object is stringified. */
  arguments: string | Record<string, unknown>;
}

export type FakeReply =
  /** An assistant message: text, tool calls or both. */
  | {
      text?: string | null;
      toolCalls?: FakeToolCall[];
      /** Sent exactly as given instead of `toolCalls` (malformed calls: `function: null`, arguments as an object). */
      rawToolCalls?: unknown[];
      stream?: boolean;
      finishReason?: string;
      /** Streamed: characters per chunk (default 7) and milliseconds between chunks (default none), as a model writes. */
      chunkChars?: number;
      paceMs?: number;
      /** Streamed: called as each chunk is written (the bench times the first token). */
      onChunk?: (index: number) => void;
      /** Streamed: waits for `until` before writing chunk `at` (a test sees the text so far while the rest is held). */
      hold?: { at: number; until: Promise<unknown> };
    }
  /** An HTTP error with the OpenAI error body. */
  | { status: number; message?: string; type?: string; code?: string; headers?: Record<string, string> }
  /** Never answers; the connection stays open until the client goes away. */
  | { hang: true }
  /** Sends the headers and the first bytes of the reply, then nothing more (a stalled body). */
  | { stallBody: true; stream?: boolean }
  /** Decides when the request arrives. */
  | { respond: (request: RecordedRequest) => FakeReply | Promise<FakeReply> };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body (the chat completion request). */
  body: ChatRequestBody;
  /** True once the client closed the connection before the reply ended (aborted). */
  aborted: boolean;
  /** The request's size as the fake counted it (with `contextWindow` or `countTokens`). */
  tokens?: number;
  /** Set when the fake refused the request as larger than `contextWindow`. */
  refused?: boolean;
}

export interface ChatRequestBody {
  model: string;
  messages: Array<Record<string, unknown> & { role: string; content?: unknown }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  max_tokens?: number;
  temperature?: number;
  [key: string]: unknown;
}

export interface FakeOpenAIOptions {
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401. */
  apiKey?: string;
  /** When set, other model names get a 404 `model_not_found`. */
  models?: string[];
  /** Played when the script is empty; default: a 500 saying the script ran out. */
  fallback?: FakeReply;
  /** Stream every reply unless a reply says otherwise (also follows the request's `stream`). */
  stream?: boolean;
  /**
   * The model's window in tokens: a larger request gets the real API's 400
   * `context_length_exceeded`, and every reply reports the request's real size in `usage`.
   */
  contextWindow?: number;
  /** Count every request and report it in `usage` (implied by `contextWindow`). */
  countTokens?: boolean;
  /** What `GET /v1/models` lists (with `context_length` when `contextWindow` is set); default the model names seen. */
  listModels?: string[];
}

/** Its url is `http://127.0.0.1:<port>/v1`; its requests are the chat requests. */
export type FakeOpenAI = ScriptedFake<RecordedRequest, FakeReply>;

let callCounter = 0;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function toolCallsOf(reply: { toolCalls?: FakeToolCall[]; rawToolCalls?: unknown[] }) {
  if (reply.rawToolCalls) return reply.rawToolCalls as Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  return (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? `call_${++callCounter}`,
    type: 'function' as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

async function writeCompletion(
  res: ServerResponse,
  model: string,
  reply: {
    text?: string | null;
    toolCalls?: FakeToolCall[];
    rawToolCalls?: unknown[];
    finishReason?: string;
    chunkChars?: number;
    paceMs?: number;
    onChunk?: (index: number) => void;
    hold?: { at: number; until: Promise<unknown> };
  },
  stream: boolean,
  /** The real sizes when the fake counts them; fixed numbers otherwise. */
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  /** The request's stream_options: `include_usage` adds the usage chunk at the end, as the real API does. */
  includeUsage = false,
): Promise<void> {
  const id = `chatcmpl-fake-${++callCounter}`;
  const created = Math.floor(Date.now() / 1000);
  const toolCalls = toolCallsOf(reply);
  const finish = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  const content = reply.text ?? (toolCalls.length > 0 ? null : '');
  if (!stream) {
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
          finish_reason: finish,
          logprobs: null,
        },
      ],
      usage,
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
    );
  chunk({ role: 'assistant', content: '' });
  // Text in a few pieces, tool call arguments split in two, as real servers do.
  const text = content ?? '';
  const size = reply.chunkChars ?? 7;
  for (let i = 0, n = 0; i < text.length; i += size, n++) {
    if (reply.paceMs && i > 0) await new Promise((resolve) => setTimeout(resolve, reply.paceMs));
    if (reply.hold?.at === n) await reply.hold.until;
    if (res.destroyed) return;
    chunk({ content: text.slice(i, i + size) });
    reply.onChunk?.(n);
  }
  toolCalls.forEach((call, index) => {
    if (typeof call.function?.arguments !== 'string') {
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: call.function }] });
      return;
    }
    const half = Math.ceil(call.function.arguments.length / 2);
    chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(0, half) } }] });
    chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] });
  });
  chunk({}, finish);
  if (includeUsage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
  res.write('data: [DONE]\n\n');
  res.end();
}

/** Starts the fake server on an ephemeral port of 127.0.0.1. */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const script: FakeReply[] = [];
  const log = new RequestLog<RecordedRequest>();
  const { requests } = log;
  const open = new Set<ServerResponse>();

  const play = async (reply: FakeReply, request: RecordedRequest, res: ServerResponse): Promise<void> => {
    if ('respond' in reply) return play(await reply.respond(request), request, res);
    if ('hang' in reply) return; // left open; closed by the client or by close()
    if ('stallBody' in reply) {
      const stream = reply.stream ?? request.body.stream ?? options.stream ?? false;
      res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
      const first = {
        id: 'chatcmpl-stalled',
        object: 'chat.completion.chunk',
        created: 0,
        model: request.body.model,
        choices: [{ index: 0, delta: { role: 'assistant', content: 'I am thin' }, finish_reason: null }],
      };
      res.write(stream ? `data: ${JSON.stringify(first)}\n\n` : '{"id": "chatcmpl-stalled", "choices": [');
      return; // left open, like hang
    }
    if ('status' in reply) {
      sendJson(
        res,
        reply.status,
        { error: { message: reply.message ?? `fake error ${reply.status}`, type: reply.type ?? 'api_error', param: null, code: reply.code ?? null } },
        reply.headers,
      );
      return;
    }
    const stream = reply.stream ?? request.body.stream ?? options.stream ?? false;
    const counted = request.tokens;
    const completion = counted === undefined ? 0 : replyTokens(reply.text, reply.toolCalls);
    const usage = counted === undefined ? undefined : { prompt_tokens: counted, completion_tokens: completion, total_tokens: counted + completion };
    const streamOptions = request.body.stream_options as { include_usage?: boolean } | undefined;
    await writeCompletion(res, request.body.model, reply, stream, usage, streamOptions?.include_usage === true);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      const ids = options.listModels ?? [...new Set(requests.map((r) => r.body.model))];
      const window = options.contextWindow ? { context_length: options.contextWindow } : {};
      sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake', ...window })) });
      return;
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      sendJson(res, 404, { error: { message: `fake: no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
      return;
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(raw) as ChatRequestBody;
    } catch {
      sendJson(res, 400, { error: { message: 'fake: body is not JSON', type: 'invalid_request_error' } });
      return;
    }
    const request: RecordedRequest = { method: req.method, path: req.url, headers: req.headers, body, aborted: false };
    res.on('close', () => {
      open.delete(res);
      if (!res.writableFinished) request.aborted = true;
    });
    open.add(res);
    log.record(request);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendJson(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      });
      return;
    }
    if (options.models && !options.models.includes(body.model)) {
      sendJson(res, 404, {
        error: {
          message: `The model \`${body.model}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      });
      return;
    }
    if (options.contextWindow !== undefined || options.countTokens) request.tokens = requestTokens(body);
    if (options.contextWindow !== undefined && request.tokens! > options.contextWindow) {
      request.refused = true;
      sendJson(res, 400, contextLengthError(options.contextWindow, request.tokens!));
      return;
    }
    const reply = script.shift() ?? options.fallback ?? { status: 500, message: 'fake: the script has no more replies' };
    await play(reply, request, res);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake: ${String(error)}`, type: 'api_error' } });
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void script.push(...replies),
    waitForRequests: (count) => log.waitFor(count),
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
