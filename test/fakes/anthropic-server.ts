import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RequestLog, type ScriptedFake } from './scripted-fake.js';

/**
 * A fake Anthropic Messages API on 127.0.0.1 for tests, spoken as the real one is: POST
 * /v1/messages answered as one JSON message or as server-sent events (message_start,
 * content_block_start, content_block_delta with text_delta / input_json_delta /
 * thinking_delta / signature_delta, content_block_stop, message_delta, message_stop), errors
 * in the API's error body, GET /v1/models. It plays scripted replies in order, records every
 * request, and keeps a prompt cache as the API does: each cache_control breakpoint caches the
 * prefix before it, and a later request that starts with a cached prefix reads it
 * (usage.cache_read_input_tokens) while the new breakpoints are written (cache_creation_input_tokens).
 */

export interface FakeAnthropicToolCall {
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

export type FakeAnthropicReply =
  | {
      text?: string;
      thinking?: { thinking: string; signature: string };
      /** A redacted thinking block's opaque data. */
      redactedThinking?: string;
      toolCalls?: FakeAnthropicToolCall[];
      stopReason?: string;
      /** Streamed: characters per delta (default 7) and milliseconds between events (default none), as a model writes. */
      chunkChars?: number;
      paceMs?: number;
    }
  /** Streamed: the stream starts (message_start), then an `event: error` (`overloaded_error`…), as the API sends one mid-reply. */
  | { streamError: string; message?: string }
  /** An HTTP error with the API's error body (`rate_limit_error`, `overloaded_error`…). */
  | { status: number; type?: string; message?: string; headers?: Record<string, string> }
  /** Decides when the request arrives. */
  | { respond: (request: AnthropicRecordedRequest) => FakeAnthropicReply | Promise<FakeAnthropicReply> };

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: Array<{ role: string; content: string | Array<Record<string, unknown> & { type: string }> }>;
  system?: string | Array<Record<string, unknown> & { type: string; text: string }>;
  tools?: Array<Record<string, unknown> & { name: string }>;
  stream?: boolean;
  thinking?: { type: string; budget_tokens?: number };
  [key: string]: unknown;
}

export interface AnthropicRecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: AnthropicRequestBody;
  /** What the fake's cache said about it. */
  usage?: { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number };
}

export interface FakeAnthropicOptions {
  /** When set, requests whose x-api-key is not one of these get a 401. */
  apiKeys?: string[];
  /** Played when the script is empty; default: a 500 saying the script ran out. */
  fallback?: FakeAnthropicReply;
  /** Ids GET /v1/models lists (default: the models asked for so far). */
  models?: string[];
}

/** Its url is the base URL the SDK takes (it adds /v1/messages). */
export type FakeAnthropic = ScriptedFake<AnthropicRecordedRequest, FakeAnthropicReply>;

/** About four characters a token, as the tests' other fakes count. */
function tokensOf(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}

/** A block without its cache_control: the cache keys on content, not on where the marks are. */
function unmarked(block: unknown): unknown {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) return block;
  return Object.fromEntries(Object.entries(block).filter(([key]) => key !== 'cache_control'));
}

function marked(block: unknown): boolean {
  return typeof block === 'object' && block !== null && 'cache_control' in block && Boolean(block.cache_control);
}

/** The request's prompt as the cache sees it: tools, then system, then each message's blocks, in order. */
function promptBlocks(body: AnthropicRequestBody): unknown[] {
  const blocks: unknown[] = [...(body.tools ?? [])];
  if (typeof body.system === 'string') blocks.push({ type: 'text', text: body.system });
  else blocks.push(...(body.system ?? []));
  for (const message of body.messages) {
    if (typeof message.content === 'string') blocks.push({ role: message.role, type: 'text', text: message.content });
    else message.content.forEach((block, i) => blocks.push(i === 0 ? { role: message.role, ...block } : block));
  }
  return blocks;
}

/** The prompt cache: prefix hash → its tokens. */
class PromptCache {
  private readonly entries = new Map<string, number>();

  usage(body: AnthropicRequestBody): { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number } {
    const hash = createHash('sha256');
    let tokens = 0;
    let read = 0;
    let lastMark = 0;
    const marks: Array<{ key: string; tokens: number }> = [];
    for (const block of promptBlocks(body)) {
      hash.update(JSON.stringify(unmarked(block)));
      tokens += tokensOf(unmarked(block));
      const key = hash.copy().digest('hex');
      // A prefix cached by an earlier request is read, marked here or not (the API looks back from each mark).
      const cached = this.entries.get(key);
      if (cached !== undefined) read = Math.max(read, cached);
      if (marked(block)) {
        marks.push({ key, tokens });
        lastMark = tokens;
      }
    }
    for (const mark of marks) this.entries.set(mark.key, mark.tokens);
    const written = Math.max(0, lastMark - read);
    return { input_tokens: Math.max(0, tokens - read - written), cache_creation_input_tokens: written, cache_read_input_tokens: read };
  }
}

/** The key a request carries: `x-api-key`, or `Authorization: Bearer` (how the SDK sends an API key). */
export function keyOf(req: { headers: IncomingMessage['headers'] }): string | undefined {
  const key = req.headers['x-api-key'];
  if (typeof key === 'string') return key;
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  return bearer?.[1];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function errorTypeFor(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_fake_${Date.now()}`, ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

type Reply = Exclude<FakeAnthropicReply, { status: number } | { respond: unknown } | { streamError: string }>;

/** The reply's content blocks as the whole message carries them. */
function contentOf(reply: Reply, counter: () => number): Array<Record<string, unknown>> {
  const content: Array<Record<string, unknown>> = [];
  if (reply.thinking) content.push({ type: 'thinking', thinking: reply.thinking.thinking, signature: reply.thinking.signature });
  if (reply.redactedThinking) content.push({ type: 'redacted_thinking', data: reply.redactedThinking });
  if (reply.text) content.push({ type: 'text', text: reply.text, citations: null });
  for (const call of reply.toolCalls ?? []) content.push({ type: 'tool_use', id: call.id ?? `toolu_fake_${counter()}`, name: call.name, input: call.input });
  return content;
}

type Writer = (event: Record<string, unknown> & { type: string }) => Promise<void>;

function eventWriter(res: ServerResponse, paceMs: number): Writer {
  return async (event) => {
    res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    if (paceMs > 0) await new Promise((resolve) => setTimeout(resolve, paceMs));
  };
}

/** The message as SSE events, each block started, its deltas, stopped. */
async function stream(res: ServerResponse, message: Record<string, unknown>, content: Array<Record<string, unknown>>, size: number, outputTokens: number, paceMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_fake_${Date.now()}` });
  const writeEvent = eventWriter(res, paceMs);
  await writeEvent({ type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null } });
  await writeEvent({ type: 'ping' });
  for (const [index, block] of content.entries()) {
    if (block.type === 'text') {
      await writeEvent({ type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: null } });
      for (const piece of chunks(String(block.text), size)) await writeEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else if (block.type === 'thinking') {
      await writeEvent({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of chunks(String(block.thinking), size)) await writeEvent({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
      await writeEvent({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'tool_use') {
      await writeEvent({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const piece of chunks(JSON.stringify(block.input), size)) await writeEvent({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    } else {
      await writeEvent({ type: 'content_block_start', index, content_block: block });
    }
    await writeEvent({ type: 'content_block_stop', index });
  }
  await writeEvent({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: outputTokens } });
  await writeEvent({ type: 'message_stop' });
  res.end();
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const script: FakeAnthropicReply[] = [];
  const log = new RequestLog<AnthropicRecordedRequest>();
  const { requests } = log;
  const cache = new PromptCache();
  let ids = 0;
  const counter = () => ++ids;

  const play = async (reply: FakeAnthropicReply, request: AnthropicRecordedRequest, res: ServerResponse): Promise<void> => {
    if ('respond' in reply) return play(await reply.respond(request), request, res);
    if ('streamError' in reply) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_fake_${Date.now()}` });
      const writeEvent = eventWriter(res, 0);
      await writeEvent({ type: 'message_start', message: { id: `msg_fake_${counter()}`, type: 'message', role: 'assistant', model: request.body.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
      await writeEvent({ type: 'error', error: { type: reply.streamError, message: reply.message ?? 'Overloaded' } });
      res.end();
      return;
    }
    if ('status' in reply) return sendError(res, reply.status, reply.type ?? errorTypeFor(reply.status), reply.message ?? `fake error ${reply.status}`, reply.headers);
    const usage = cache.usage(request.body);
    request.usage = usage;
    const content = contentOf(reply, counter);
    const stopReason = reply.stopReason ?? (reply.toolCalls?.length ? 'tool_use' : 'end_turn');
    const outputTokens = Math.max(1, tokensOf(content));
    const message = {
      id: `msg_fake_${counter()}`,
      type: 'message',
      role: 'assistant',
      model: request.body.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { ...usage, output_tokens: outputTokens },
    };
    if (request.body.stream) return stream(res, { ...message, usage: { ...usage, output_tokens: 1 } }, content, reply.chunkChars ?? 7, outputTokens, reply.paceMs ?? 0);
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_fake_${Date.now()}` });
    res.end(JSON.stringify(message));
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0];
      const key = keyOf(req);
      if (options.apiKeys && (key === undefined || !options.apiKeys.includes(key))) {
        return sendError(res, 401, 'authentication_error', 'invalid x-api-key');
      }
      if (req.method === 'GET' && path === '/v1/models') {
        const listed = options.models ?? [...new Set(requests.map((r) => r.body.model))];
        const data = listed.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z', max_input_tokens: 200_000 }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }));
        return;
      }
      if (req.method !== 'POST' || path !== '/v1/messages') return sendError(res, 404, 'not_found_error', `no route ${req.method} ${path}`);
      let body: AnthropicRequestBody;
      try {
        body = JSON.parse(await readBody(req)) as AnthropicRequestBody;
      } catch {
        return sendError(res, 400, 'invalid_request_error', 'the body is not JSON');
      }
      const request: AnthropicRecordedRequest = { method: req.method, path, headers: req.headers, body };
      log.record(request);
      const reply = script.shift() ?? options.fallback ?? { status: 500, type: 'api_error', message: 'the fake Anthropic script ran out of replies' };
      await play(reply, request, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, 'api_error', String(error));
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => void script.push(...replies),
    waitForRequests: (count) => log.waitFor(count),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
