import { createHmac, randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** One Web API call the fake received. */
export interface SlackCall {
  method: string;
  params: Record<string, unknown>;
  token: string | undefined;
}

/** A message as the fake keeps it (bot posts and user messages it delivered). */
export interface FakeSlackMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  user?: string;
  bot_id?: string;
  text: string;
  /** Block Kit blocks the bot posted with the message, parsed. */
  blocks?: Array<Record<string, unknown>>;
}

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  signingSecret?: string;
  team?: string;
  botUserId?: string;
  botId?: string;
}

/**
 * Slack on 127.0.0.1: the Web API (`/api/<method>`, form or JSON bodies, `{ok: true, …}`),
 * signed Events API deliveries to a Bolt HTTP receiver, and Socket Mode (`apps.connections.open`
 * returning a `ws://127.0.0.1` URL, `hello`, `events_api` envelopes whose acks it checks).
 */
export class FakeSlack extends EventEmitter {
  readonly botToken: string;
  readonly appToken: string;
  readonly signingSecret: string;
  readonly team: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly calls: SlackCall[] = [];
  readonly messages: FakeSlackMessage[] = [];
  /** Socket Mode connections opened so far. */
  connections = 0;
  /** Envelope ids the Socket Mode client acknowledged. */
  readonly acks = new Set<string>();
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private clock = 1_700_000_000;
  /** Calls to refuse once each (see `refuseNext`). */
  private refusals: Array<{ method: string; when: (params: Record<string, unknown>) => boolean; error: string }> = [];
  private pinger: NodeJS.Timeout | undefined;

  constructor(options: FakeSlackOptions = {}) {
    super();
    this.botToken = options.botToken ?? 'xoxb-fake-bot-token';
    this.appToken = options.appToken ?? 'xapp-fake-app-token';
    this.signingSecret = options.signingSecret ?? 'fake-signing-secret';
    this.team = options.team ?? 'T0FAKE';
    this.botUserId = options.botUserId ?? 'U0BOT';
    this.botId = options.botId ?? 'B0BOT';
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.wss = new WebSocketServer({ server: this.server, path: '/socket-mode' });
    this.wss.on('connection', (socket) => this.onSocket(socket));
  }

  async listen(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.pinger = setInterval(() => this.sockets.forEach((s) => s.ping()), 5_000).unref();
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The Web API root to give the WebClient (`slackApiUrl`). */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/`;
  }

  /** A fresh message timestamp, increasing like Slack's. */
  nextTs(): string {
    this.clock += 1;
    return `${this.clock}.000100`;
  }

  /** Answers the next call to `method` whose parameters match `when` with `{ ok: false, error }`, as Slack does. */
  refuseNext(method: string, error: string, when: (params: Record<string, unknown>) => boolean = () => true): void {
    this.refusals.push({ method, when, error });
  }

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Resolves with the first call (past or future) to `method` that satisfies `match`. */
  async waitForCall(method: string, match: (call: SlackCall) => boolean = () => true, timeoutMs = 15_000): Promise<SlackCall> {
    const found = this.calls.find((call) => call.method === method && match(call));
    if (found) return found;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('call', onCall);
        reject(new Error(`fake Slack: no ${method} call matched within ${timeoutMs} ms`));
      }, timeoutMs);
      const onCall = (call: SlackCall): void => {
        if (call.method !== method || !match(call)) return;
        clearTimeout(timer);
        this.off('call', onCall);
        resolve(call);
      };
      this.on('call', onCall);
    });
  }

  /** An `event_callback` body as the Events API sends it; the user message is also remembered for conversations.replies. */
  eventBody(event: Record<string, unknown>, eventId = `Ev${randomUUID().slice(0, 8)}`): Record<string, unknown> {
    if (typeof event.ts === 'string' && typeof event.channel === 'string' && event.type === 'message') {
      this.messages.push({
        channel: event.channel,
        ts: event.ts,
        thread_ts: event.thread_ts as string | undefined,
        user: event.user as string | undefined,
        text: String(event.text ?? ''),
      });
    }
    return {
      token: 'verification-token',
      team_id: this.team,
      api_app_id: 'A0FAKE',
      event: { event_ts: event.ts, ...event },
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: this.team, user_id: this.botUserId, is_bot: true }],
    };
  }

  /** POSTs a body to a Bolt HTTP receiver, signed (v0 HMAC-SHA256) like Slack does. */
  async deliverHttp(
    url: string,
    body: Record<string, unknown>,
    options: { retryNum?: number; secret?: string } = {},
  ): Promise<{ status: number; text: string }> {
    return this.postSigned(url, JSON.stringify(body), 'application/json', options);
  }

  /**
   * A `block_actions` payload for a press of button `actionId` on the bot's message `ts` in
   * `channel`, by `user`, as Slack sends it to the Interactivity request URL.
   */
  blockActionsPayload(fields: { actionId: string; user: string; channel: string; ts: string }): Record<string, unknown> {
    const posted = this.messages.find((m) => m.channel === fields.channel && m.ts === fields.ts);
    const element = posted?.blocks
      ?.flatMap((block) => (Array.isArray(block.elements) ? (block.elements as Array<Record<string, unknown>>) : []))
      .find((e) => e.action_id === fields.actionId);
    const block = posted?.blocks?.find((b) => Array.isArray(b.elements) && (b.elements as unknown[]).includes(element));
    const message: Record<string, unknown> = { type: 'message', ts: fields.ts, text: posted?.text ?? '', user: this.botUserId, bot_id: this.botId };
    if (posted?.blocks) message.blocks = posted.blocks;
    if (posted?.thread_ts) message.thread_ts = posted.thread_ts;
    return {
      type: 'block_actions',
      user: { id: fields.user, username: fields.user.toLowerCase(), name: fields.user.toLowerCase(), team_id: this.team },
      api_app_id: 'A0FAKE',
      token: 'verification-token',
      container: {
        type: 'message',
        message_ts: fields.ts,
        channel_id: fields.channel,
        is_ephemeral: false,
        ...(posted?.thread_ts ? { thread_ts: posted.thread_ts } : {}),
      },
      trigger_id: `${Date.now()}.1.${randomUUID().slice(0, 8)}`,
      team: { id: this.team, domain: 'fake' },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: fields.channel, name: fields.channel.startsWith('D') ? 'directmessage' : 'general' },
      message,
      state: { values: {} },
      response_url: `http://127.0.0.1:${this.port}/actions/${randomUUID()}`,
      actions: [
        {
          action_id: fields.actionId,
          block_id: block?.block_id ?? 'b0',
          text: element?.text ?? { type: 'plain_text', text: fields.actionId },
          value: element?.value ?? '',
          ...(element?.style ? { style: element.style } : {}),
          type: 'button',
          action_ts: `${Math.floor(Date.now() / 1000)}.000200`,
        },
      ],
    };
  }

  /** POSTs an interactive payload to a Bolt HTTP receiver as Slack does: form body `payload=<json>`, signed. */
  async deliverInteractiveHttp(url: string, payload: Record<string, unknown>, options: { secret?: string } = {}): Promise<{ status: number; text: string }> {
    const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return this.postSigned(url, raw, 'application/x-www-form-urlencoded', options);
  }

  private async postSigned(
    url: string,
    raw: string,
    contentType: string,
    options: { retryNum?: number; secret?: string },
  ): Promise<{ status: number; text: string }> {
    const timestamp = Math.floor(Date.now() / 1000).toString();
    const signature = createHmac('sha256', options.secret ?? this.signingSecret).update(`v0:${timestamp}:${raw}`).digest('hex');
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': `v0=${signature}`,
    };
    if (options.retryNum !== undefined) {
      headers['x-slack-retry-num'] = String(options.retryNum);
      headers['x-slack-retry-reason'] = 'http_timeout';
    }
    const response = await fetch(url, { method: 'POST', headers, body: raw });
    return { status: response.status, text: await response.text() };
  }

  /** Sends an `events_api` envelope to every Socket Mode client; resolves with its envelope id once acked. */
  async deliverSocket(body: Record<string, unknown>, options: { retryAttempt?: number; timeoutMs?: number } = {}): Promise<string> {
    return this.sendEnvelope('events_api', body, options);
  }

  /** Sends an `interactive` envelope (a button press payload) to every Socket Mode client; resolves once acked. */
  async deliverInteractiveSocket(payload: Record<string, unknown>, options: { timeoutMs?: number } = {}): Promise<string> {
    return this.sendEnvelope('interactive', payload, options);
  }

  private async sendEnvelope(
    type: 'events_api' | 'interactive',
    body: Record<string, unknown>,
    options: { retryAttempt?: number; timeoutMs?: number },
  ): Promise<string> {
    if (this.sockets.size === 0) throw new Error('fake Slack: no Socket Mode client is connected');
    const envelopeId = randomUUID();
    const envelope: Record<string, unknown> = {
      envelope_id: envelopeId,
      payload: body,
      type,
      accepts_response_payload: type === 'interactive',
    };
    if (type === 'events_api') {
      envelope.retry_attempt = options.retryAttempt ?? 0;
      envelope.retry_reason = options.retryAttempt ? 'timeout' : '';
    }
    const acked = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fake Slack: envelope ${envelopeId} not acked`)), options.timeoutMs ?? 10_000);
      const onAck = (id: string): void => {
        if (id !== envelopeId) return;
        clearTimeout(timer);
        this.off('ack', onAck);
        resolve();
      };
      this.on('ack', onAck);
    });
    for (const socket of this.sockets) socket.send(JSON.stringify(envelope));
    await acked;
    return envelopeId;
  }

  /** Tells every Socket Mode client to reconnect, as Slack does before recycling a connection. */
  askToReconnect(): void {
    for (const socket of this.sockets) socket.send(JSON.stringify({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'fake' } }));
  }

  /** Number of open Socket Mode connections. */
  get socketCount(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    clearInterval(this.pinger);
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onSocket(socket: WebSocket): void {
    this.connections += 1;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: string };
      if (message.envelope_id) {
        this.acks.add(message.envelope_id);
        this.emit('ack', message.envelope_id);
      }
    });
    socket.send(
      JSON.stringify({ type: 'hello', num_connections: this.sockets.size, connection_info: { app_id: 'A0FAKE' }, debug_info: { host: 'fake' } }),
    );
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = /^\/api\/([\w.]+)$/.exec(url.pathname);
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const params = await readParams(req, url);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? (params.token as string | undefined);
    const call: SlackCall = { method: match[1], params, token };
    this.calls.push(call);
    this.emit('call', call);
    const reply = (body: Record<string, unknown>): void => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
    };
    const expected = call.method === 'apps.connections.open' ? this.appToken : this.botToken;
    if (token !== expected) return reply({ ok: false, error: 'invalid_auth' });
    const refusal = this.refusals.findIndex((r) => r.method === call.method && r.when(params));
    if (refusal >= 0) return reply({ ok: false, error: this.refusals.splice(refusal, 1)[0].error });
    reply(this.answer(call));
  }

  private answer({ method, params }: SlackCall): Record<string, unknown> {
    switch (method) {
      case 'auth.test':
        return { ok: true, url: 'https://fake.slack/', team: 'Fake', user: 'hermes', team_id: this.team, user_id: this.botUserId, bot_id: this.botId };
      case 'apps.connections.open':
        return { ok: true, url: `ws://127.0.0.1:${this.port}/socket-mode?ticket=${randomUUID()}` };
      case 'chat.postMessage': {
        if (typeof params.channel !== 'string' || typeof params.text !== 'string') return { ok: false, error: 'invalid_arguments' };
        const message: FakeSlackMessage = { channel: params.channel, ts: this.nextTs(), text: params.text, user: this.botUserId, bot_id: this.botId };
        if (typeof params.thread_ts === 'string') message.thread_ts = params.thread_ts;
        const blocks = readBlocks(params.blocks);
        if (blocks) message.blocks = blocks;
        this.messages.push(message);
        return { ok: true, channel: message.channel, ts: message.ts, message: { type: 'message', ...message } };
      }
      case 'chat.update': {
        const message = this.messages.find((m) => m.channel === params.channel && m.ts === params.ts);
        if (!message) return { ok: false, error: 'message_not_found' };
        message.text = String(params.text ?? '');
        const blocks = readBlocks(params.blocks);
        if (blocks) message.blocks = blocks;
        return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
      }
      case 'reactions.add':
      case 'reactions.remove':
        return { ok: true };
      case 'conversations.replies': {
        const thread = this.messages.filter((m) => m.channel === params.channel && (m.ts === params.ts || m.thread_ts === params.ts));
        return { ok: true, messages: thread.map((m) => ({ type: 'message', ...m })), has_more: false };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }
}

async function readParams(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  if (!raw) return params;
  if ((req.headers['content-type'] ?? '').includes('application/json')) return { ...params, ...(JSON.parse(raw) as Record<string, unknown>) };
  for (const [key, value] of new URLSearchParams(raw)) params[key] = value;
  return params;
}

/** `blocks` as the WebClient sends them: a JSON string in a form body, an array in a JSON body. */
function readBlocks(value: unknown): Array<Record<string, unknown>> | undefined {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return Array.isArray(parsed) ? (parsed as Array<Record<string, unknown>>) : undefined;
}

/** A Slack user message event. */
export function slackMessage(fields: { channel: string; user: string; text: string; ts: string; thread_ts?: string; channel_type?: string }): Record<string, unknown> {
  return { type: 'message', channel_type: fields.channel.startsWith('D') ? 'im' : 'channel', ...fields };
}
