import { createHash, createHmac, randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { readMultipart } from './multipart.js';

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

/** A file in the fake workspace: what users share (served at url_private) and what the bot uploads. */
export interface FakeSlackFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  /** The bytes, or (large files) a path on disk they are served from. */
  bytes?: Buffer;
  path?: string;
}

/** One upload through files.getUploadURLExternal → the upload URL → files.completeUploadExternal. */
export interface FakeSlackUpload {
  file_id: string;
  filename: string;
  /** The `length` given to files.getUploadURLExternal. */
  length: number;
  /** Bytes that arrived at the upload URL, and their SHA-256. */
  received: number;
  sha256: string;
  /** The bytes, kept when at most 32 MB arrived. */
  bytes?: Buffer;
  /** Set by files.completeUploadExternal. */
  completed?: { channel_id?: string; thread_ts?: string; initial_comment?: string; title?: string };
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
  /** Streams the bot started (chat.startStream), by ts: still open until chat.stopStream. */
  readonly streams = new Map<string, { channel: string; open: boolean; appends: number }>();
  /** Assistant thread statuses the bot set, in order (`channel:thread_ts → status`). */
  readonly statuses: Array<{ channel: string; thread_ts: string; status: string }> = [];
  /**
   * Slack's "about one update a second" per message: a second chat.update or
   * chat.appendStream of one message within 900 ms gets HTTP 429 with Retry-After, counted here.
   */
  enforceRates = false;
  rateViolations = 0;
  private lastUpdate = new Map<string, number>();
  /** Bodies posted to response_urls (ephemeral answers to slash commands and presses). */
  readonly responses: Array<Record<string, unknown>> = [];
  /** Answer chat.startStream with `unknown_method`, as a workspace without chat streams. */
  noStreams = false;
  /** Files by id. */
  readonly files = new Map<string, FakeSlackFile>();
  /** Uploads by file id, in the order they were asked for. */
  readonly uploads = new Map<string, FakeSlackUpload>();
  private nextFile = 1;

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

  /** Adds a file as a user shares it; returns the file object a `file_share` event carries. */
  addFile(fields: { name: string; mimetype: string; bytes?: Buffer; path?: string; size?: number; user?: string }): Record<string, unknown> {
    const id = `F0${String(this.nextFile++).padStart(8, '0')}`;
    const size = fields.size ?? fields.bytes?.length ?? 0;
    const filetype = fields.name.includes('.') ? fields.name.split('.').pop()!.toLowerCase() : 'binary';
    const file: FakeSlackFile = { id, name: fields.name, title: fields.name, mimetype: fields.mimetype, filetype, size, ...(fields.bytes ? { bytes: fields.bytes } : {}), ...(fields.path ? { path: fields.path } : {}) };
    this.files.set(id, file);
    return this.fileObject(file, fields.user ?? 'U1');
  }

  /** A file object as Slack's events and files.info show it: url_private needs the bot token. */
  fileObject(file: FakeSlackFile, user = 'U1'): Record<string, unknown> {
    const base = `http://127.0.0.1:${this.port}/files-pri/${this.team}-${file.id}`;
    return {
      id: file.id,
      created: Math.floor(Date.now() / 1000),
      name: file.name,
      title: file.title,
      mimetype: file.mimetype,
      filetype: file.filetype,
      user,
      mode: 'hosted',
      is_external: false,
      size: file.size,
      url_private: `${base}/${encodeURIComponent(file.name)}`,
      url_private_download: `${base}/download/${encodeURIComponent(file.name)}`,
    };
  }

  /** A `message` event with subtype `file_share`, as Slack sends when a user posts files (with or without text). */
  fileShare(fields: { channel: string; user: string; text?: string; ts: string; thread_ts?: string; files: Array<Record<string, unknown>> }): Record<string, unknown> {
    return {
      type: 'message',
      subtype: 'file_share',
      channel_type: fields.channel.startsWith('D') ? 'im' : 'channel',
      channel: fields.channel,
      user: fields.user,
      text: fields.text ?? '',
      ts: fields.ts,
      ...(fields.thread_ts ? { thread_ts: fields.thread_ts } : {}),
      files: fields.files,
      upload: false,
      display_as_bot: false,
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

  /** Sends a `slash_commands` envelope (`/hermes new` typed by `user` in `channel`) to every Socket Mode client; resolves once acked. */
  async deliverSlashCommand(fields: { command: string; text: string; user: string; channel: string }): Promise<string> {
    return this.sendEnvelope('slash_commands', {
      token: 'verification-token',
      team_id: this.team,
      team_domain: 'fake',
      channel_id: fields.channel,
      channel_name: fields.channel.startsWith('D') ? 'directmessage' : 'general',
      user_id: fields.user,
      user_name: fields.user.toLowerCase(),
      command: fields.command,
      text: fields.text,
      api_app_id: 'A0FAKE',
      is_enterprise_install: 'false',
      response_url: `http://127.0.0.1:${this.port}/commands/${randomUUID()}`,
      trigger_id: `${Date.now()}.1.${randomUUID().slice(0, 8)}`,
    }, {});
  }

  /** Sends an `interactive` envelope (a button press payload) to every Socket Mode client; resolves once acked. */
  async deliverInteractiveSocket(payload: Record<string, unknown>, options: { timeoutMs?: number } = {}): Promise<string> {
    return this.sendEnvelope('interactive', payload, options);
  }

  private async sendEnvelope(
    type: 'events_api' | 'interactive' | 'slash_commands',
    body: Record<string, unknown>,
    options: { retryAttempt?: number; timeoutMs?: number },
  ): Promise<string> {
    if (this.sockets.size === 0) throw new Error('fake Slack: no Socket Mode client is connected');
    const envelopeId = randomUUID();
    const envelope: Record<string, unknown> = {
      envelope_id: envelopeId,
      payload: body,
      type,
      accepts_response_payload: type !== 'events_api',
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
    if (/^\/(commands|actions)\//.test(url.pathname)) {
      // A response_url: what the app said back to a command or a press.
      this.responses.push(await readParams(req, url));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    }
    if (url.pathname.startsWith('/files-pri/')) return this.serveFile(url.pathname, req, res);
    if (url.pathname.startsWith('/upload/v1/')) return this.receiveUpload(url.pathname, req, res);
    if (url.pathname === '/signin') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Sign in to Slack</title>');
      return;
    }
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
    if (this.enforceRates && (call.method === 'chat.update' || call.method === 'chat.appendStream')) {
      const key = `${String(params.channel)}:${String(params.ts)}`;
      const now = Date.now();
      const last = this.lastUpdate.get(key);
      if (last !== undefined && now - last < 900) {
        this.rateViolations++;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end(JSON.stringify({ ok: false, error: 'ratelimited' }));
        return;
      }
      this.lastUpdate.set(key, now);
    }
    reply(this.answer(call));
  }

  /**
   * url_private and url_private_download: the bytes with `Authorization: Bearer <bot token>`;
   * without it Slack redirects to its sign-in page, which is HTML, not the file.
   */
  private serveFile(pathname: string, req: IncomingMessage, res: ServerResponse): void {
    const match = /^\/files-pri\/[^/-]+-(F\w+)\//.exec(pathname);
    const file = match ? this.files.get(match[1]) : undefined;
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token !== this.botToken) {
      res.writeHead(302, { location: '/signin' }).end();
      return;
    }
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('file_not_found');
      return;
    }
    res.writeHead(200, { 'content-type': file.mimetype, 'content-length': file.size });
    if (file.path) createReadStream(file.path).pipe(res);
    else res.end(file.bytes ?? Buffer.alloc(0));
  }

  /** The upload URL: raw bytes or a multipart body; streamed into a hash so large files cost no memory. */
  private async receiveUpload(pathname: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const upload = this.uploads.get(pathname.slice('/upload/v1/'.length));
    if (!upload || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('invalid upload url');
      return;
    }
    const keep = 32 * 1024 * 1024;
    // A file announced larger than that is only hashed: the benchmark's 100 MB must not sit in memory here.
    const keeping = upload.length <= keep;
    const hash = createHash('sha256');
    const chunks: Buffer[] = [];
    let received = 0;
    const take = (chunk: Buffer) => {
      hash.update(chunk);
      received += chunk.length;
      if (keeping && received <= keep) chunks.push(chunk);
    };
    if ((req.headers['content-type'] ?? '').includes('multipart/form-data')) {
      const { files } = await readMultipart(req.headers, req);
      for (const file of files.slice(0, 1)) take(file.bytes);
    } else {
      for await (const chunk of req) take(chunk as Buffer);
    }
    upload.received = received;
    upload.sha256 = hash.digest('hex');
    if (keeping && received <= keep) upload.bytes = Buffer.concat(chunks);
    this.emit('upload', upload);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${received}`);
  }

  /** files.completeUploadExternal: shares the uploaded files in the channel (and thread) as one bot message. */
  private completeUploads(params: Record<string, unknown>): Record<string, unknown> {
    let listed: Array<{ id?: string; title?: string }>;
    try {
      listed = typeof params.files === 'string' ? (JSON.parse(params.files) as typeof listed) : (params.files as typeof listed);
    } catch {
      return { ok: false, error: 'invalid_arguments' };
    }
    if (!Array.isArray(listed) || listed.length === 0) return { ok: false, error: 'invalid_arguments' };
    const done: FakeSlackFile[] = [];
    for (const entry of listed) {
      const upload = entry.id ? this.uploads.get(entry.id) : undefined;
      if (!upload || upload.sha256 === '') return { ok: false, error: 'file_not_found' };
      if (upload.received !== upload.length) return { ok: false, error: 'file_upload_size_mismatch' };
      upload.completed = {
        ...(typeof params.channel_id === 'string' ? { channel_id: params.channel_id } : {}),
        ...(typeof params.thread_ts === 'string' ? { thread_ts: params.thread_ts } : {}),
        ...(typeof params.initial_comment === 'string' ? { initial_comment: params.initial_comment } : {}),
        ...(entry.title ? { title: entry.title } : {}),
      };
      const file: FakeSlackFile = { id: upload.file_id, name: upload.filename, title: entry.title ?? upload.filename, mimetype: 'application/octet-stream', filetype: 'binary', size: upload.received, ...(upload.bytes ? { bytes: upload.bytes } : {}) };
      this.files.set(file.id, file);
      done.push(file);
    }
    if (typeof params.channel_id === 'string') {
      const message: FakeSlackMessage = { channel: params.channel_id, ts: this.nextTs(), text: String(params.initial_comment ?? ''), user: this.botUserId, bot_id: this.botId };
      if (typeof params.thread_ts === 'string') message.thread_ts = params.thread_ts;
      this.messages.push(message);
    }
    return { ok: true, files: done.map((file) => ({ id: file.id, title: file.title })) };
  }

  private answer({ method, params }: SlackCall): Record<string, unknown> {
    switch (method) {
      case 'files.info': {
        const file = this.files.get(String(params.file ?? ''));
        return file ? { ok: true, file: this.fileObject(file) } : { ok: false, error: 'file_not_found' };
      }
      case 'files.getUploadURLExternal': {
        const length = Number(params.length);
        if (typeof params.filename !== 'string' || !params.filename || !Number.isInteger(length) || length < 1) return { ok: false, error: 'invalid_arguments' };
        if (length > 1024 * 1024 * 1024) return { ok: false, error: 'file_too_large' };
        const fileId = `F0${String(this.nextFile++).padStart(8, '0')}`;
        this.uploads.set(fileId, { file_id: fileId, filename: params.filename, length, received: 0, sha256: '' });
        return { ok: true, upload_url: `http://127.0.0.1:${this.port}/upload/v1/${fileId}`, file_id: fileId };
      }
      case 'files.completeUploadExternal':
        return this.completeUploads(params);
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
      case 'chat.startStream': {
        if (this.noStreams) return { ok: false, error: 'unknown_method' };
        if (typeof params.channel !== 'string' || typeof params.thread_ts !== 'string') return { ok: false, error: 'invalid_arguments' };
        // Outside a DM the stream names who receives it.
        if (!params.channel.startsWith('D') && (typeof params.recipient_user_id !== 'string' || typeof params.recipient_team_id !== 'string')) {
          return { ok: false, error: 'missing_recipient_user_id' };
        }
        const message: FakeSlackMessage = { channel: params.channel, ts: this.nextTs(), thread_ts: params.thread_ts, text: String(params.markdown_text ?? ''), user: this.botUserId, bot_id: this.botId };
        this.messages.push(message);
        this.streams.set(message.ts, { channel: message.channel, open: true, appends: 0 });
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const stream = this.streams.get(String(params.ts));
        const message = this.messages.find((m) => m.channel === params.channel && m.ts === params.ts);
        if (!stream || !message) return { ok: false, error: 'message_not_found' };
        if (!stream.open) return { ok: false, error: 'message_not_in_streaming_state' };
        if (typeof params.markdown_text === 'string') message.text += params.markdown_text;
        else if (method === 'chat.appendStream') return { ok: false, error: 'invalid_arguments' };
        if (method === 'chat.appendStream') stream.appends++;
        else stream.open = false;
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case 'assistant.threads.setStatus':
        if (typeof params.channel_id !== 'string' || typeof params.thread_ts !== 'string') return { ok: false, error: 'invalid_arguments' };
        this.statuses.push({ channel: params.channel_id, thread_ts: params.thread_ts, status: String(params.status ?? '') });
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
