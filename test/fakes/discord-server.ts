import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { readMultipart } from './multipart.js';
export type { FakeDiscordUser } from './discord-payloads.js';
import { botMessageObject, buttonInteractionPayload, guildCreatePayload, memberObject, userObject, type FakeDiscordUser } from './discord-payloads.js';

/** One REST request the fake received. */
export interface DiscordCall {
  method: string;
  /** The route after `/api/v10`, e.g. `/channels/123/messages`. */
  path: string;
  body: Record<string, unknown> | undefined;
  query: URLSearchParams;
  authorization: string | undefined;
  /** The multipart file parts, when the request had files. */
  files?: Array<{ field: string; filename: string; content_type: string; bytes: Buffer }>;
}

/** A message as the fake keeps it (what the bot posted through REST or a webhook). */
export interface FakeDiscordMessage {
  id: string;
  channel_id: string;
  content: string;
  /** `channel` for channel messages, `interaction` for the deferred answer and follow-ups. */
  via: 'channel' | 'interaction';
  interactionToken?: string;
  /** Message components (action rows of buttons) the bot sent with it. */
  components?: unknown[];
  /** Files the bot attached (`files[n]` parts of a multipart body). */
  files?: FakeDiscordAttachment[];
}

/** An attachment as the fake keeps it: served at its `url`, as Discord's CDN serves attachments. */
export interface FakeDiscordAttachment {
  id: string;
  filename: string;
  content_type: string;
  bytes: Buffer;
}

/** A rate limit bucket as Discord describes one: `limit` requests per window of `windowMs`. */
export interface FakeRateLimit {
  limit: number;
  windowMs: number;
}

/** One accepted edit of a message: when, which message, and where (channel or interaction token). */
export interface FakeDiscordEdit {
  at: number;
  messageId: string;
  bucket: string;
}

/** Discord refuses a request whose files pass the upload limit (10 MiB without boosts). */
const UPLOAD_LIMIT = 10 * 1024 * 1024;

const GUILD_TEXT = 0;
const DM = 1;
const PUBLIC_THREAD = 11;
const GUILD_FORUM = 15;

/**
 * Discord on 127.0.0.1: the REST API under `/api/v10` (gateway/bot, users/@me, applications/@me,
 * application commands, channel messages, threads, typing, interaction callbacks and webhooks) and
 * a Gateway WebSocket speaking HELLO, IDENTIFY, READY, heartbeats and dispatches, JSON, no compression.
 */
export class FakeDiscord extends EventEmitter {
  readonly token = 'fake.discord.bot-token';
  readonly applicationId = '900000000000000001';
  readonly bot: FakeDiscordUser = { id: '900000000000000002', username: 'hermes', bot: true };
  /** Who made the application (`owner` of applications/@me). */
  readonly owner: FakeDiscordUser = { id: '930000000000000001', username: 'ada' };
  /** The application's flags: the Message Content intent (GATEWAY_MESSAGE_CONTENT, 1 << 18) is on unless a test turns it off. */
  applicationFlags = 1 << 18;
  readonly guildId = '910000000000000001';
  readonly channelId = '920000000000000001';
  /** A forum channel (GUILD_FORUM) of the guild: its posts are threads. */
  readonly forumChannelId = '920000000000000002';
  readonly calls: DiscordCall[] = [];
  readonly messages: FakeDiscordMessage[] = [];
  /** Every IDENTIFY payload (`d`) received. */
  readonly identifies: Record<string, unknown>[] = [];
  heartbeats = 0;
  commands: Record<string, unknown>[] = [];
  /**
   * When set, message edits (PATCH of a channel message or an interaction's message) keep to
   * this bucket per channel, answered with X-RateLimit-* headers; past it the fake answers 429
   * with `retry_after` and Retry-After, as Discord does (about 5 edits per 5 s per channel).
   */
  editRateLimit: FakeRateLimit | undefined;
  /** Edits the fake refused with 429 (the client went faster than the headers allowed). */
  rateLimited = 0;
  /** Every edit the fake accepted, in order. */
  readonly edits: FakeDiscordEdit[] = [];
  /** Reactions the bot has on a message (`<channel>/<message>` → emoji), and every PUT and DELETE in order. */
  readonly reactions = new Map<string, Set<string>>();
  readonly reactionLog: Array<{ op: 'put' | 'delete'; channelId: string; messageId: string; emoji: string }> = [];
  /** Users' messages by id → their channel (reactions go on them). */
  private readonly userMessages = new Map<string, string>();
  /** Edit buckets: key → window start and requests in it. */
  private readonly buckets = new Map<string, { start: number; used: number }>();
  private readonly server: Server;
  private readonly wss: WebSocketServer;
  private readonly sessions = new Set<WebSocket>();
  private readonly threads = new Map<string, Record<string, unknown>>();
  /** Interaction token → id of its deferred answer (`@original`). */
  private readonly originals = new Map<string, string>();
  /** Interaction token → the channel it was used in. */
  private readonly interactionChannels = new Map<string, string>();
  /** Interaction token → its type (2 slash command, 3 component) until its one callback arrives. */
  private readonly pendingCallbacks = new Map<string, number>();
  /** Requests to refuse once each (see `refuseNext`). */
  private refusals: Array<{ method: string; path: RegExp; when: (body: Record<string, unknown>) => boolean; status: number; body: unknown }> = [];
  private sequence = 0;
  private nextId = 930_000_000_000_000_000n;
  /** Attachments by id: what users sent and what the bot uploaded. */
  private readonly attachments = new Map<string, FakeDiscordAttachment & { channel_id: string }>();

  constructor(private readonly heartbeatIntervalMs = 41_250) {
    super();
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.wss = new WebSocketServer({ server: this.server, path: '/gateway' });
    this.wss.on('connection', (socket, req) => this.onGateway(socket, req));
  }

  async listen(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  /** Answers the next `method` request to a path matching `path` (and body matching `when`) with `status` and `body`, as Discord does. */
  refuseNext(method: string, path: RegExp, status: number, body: unknown, when: (body: Record<string, unknown>) => boolean = () => true): void {
    this.refusals.push({ method, path, when, status, body });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The REST root to give discord.js (`rest: { api }`); it appends `/v10`. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  /** A fresh snowflake, increasing. */
  snowflake(): string {
    this.nextId += 1n;
    return this.nextId.toString();
  }

  callsTo(method: string, pathPattern: RegExp): DiscordCall[] {
    return this.calls.filter((call) => call.method === method && pathPattern.test(call.path));
  }

  /** Resolves with the first REST call (past or future) matching method and path. */
  async waitForCall(method: string, pathPattern: RegExp, match: (call: DiscordCall) => boolean = () => true, timeoutMs = 15_000): Promise<DiscordCall> {
    const test = (call: DiscordCall): boolean => call.method === method && pathPattern.test(call.path) && match(call);
    const found = this.calls.find(test);
    if (found) return found;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('call', onCall);
        reject(new Error(`fake Discord: no ${method} ${pathPattern} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onCall = (call: DiscordCall): void => {
        if (!test(call)) return;
        clearTimeout(timer);
        this.off('call', onCall);
        resolve(call);
      };
      this.on('call', onCall);
    });
  }

  /** Sends a dispatch (op 0) to every identified Gateway session. */
  dispatch(t: string, d: Record<string, unknown>): void {
    for (const socket of this.sessions) this.sendTo(socket, t, d);
  }

  /** Number of Gateway sessions that identified and are still open. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Tells every session to reconnect (op 7), as Discord does before moving a connection. */
  askToReconnect(): void {
    for (const socket of this.sessions) socket.send(JSON.stringify({ op: 7, d: null, s: null, t: null }));
  }

  /** Asks every session to heartbeat now (op 1 from the server). */
  requestHeartbeat(): void {
    for (const socket of this.sessions) socket.send(JSON.stringify({ op: 1, d: this.sequence, s: null, t: null }));
  }

  /** The attachment object Discord puts in a message, with the CDN-like URL the fake serves it at. */
  attachmentObject(attachment: FakeDiscordAttachment, channelId: string): Record<string, unknown> {
    const url = `http://127.0.0.1:${this.port}/attachments/${channelId}/${attachment.id}/${encodeURIComponent(attachment.filename)}`;
    return { id: attachment.id, filename: attachment.filename, size: attachment.bytes.length, url, proxy_url: url, content_type: attachment.content_type };
  }

  /** A user's message in the guild channel, a thread, or a DM (`dmChannelId`); returns its id. */
  userMessage(options: {
    author: FakeDiscordUser;
    content: string;
    channelId?: string;
    dm?: boolean;
    mentionBot?: boolean;
    /** Files the user attached; `size` may claim another length than the bytes have. */
    files?: Array<{ filename: string; contentType: string; bytes: Buffer; size?: number }>;
    /** A voice message: flags IS_VOICE_MESSAGE (1 << 13), its one file with `duration_secs` and `waveform`. */
    voice?: { durationSecs: number; waveform: string };
    /** A reply to this message of the bot's (Discord's message_reference and referenced_message). */
    replyTo?: string;
    /** The message's id (a forum post's first message has its thread's). */
    id?: string;
  }): string {
    const id = options.id ?? this.snowflake();
    const channelId = options.channelId ?? this.channelId;
    const content = options.mentionBot ? `<@${this.bot.id}> ${options.content}` : options.content;
    const data: Record<string, unknown> = {
      id,
      channel_id: channelId,
      author: userObject(options.author),
      content,
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: options.mentionBot ? [userObject(this.bot)] : [],
      mention_roles: [],
      attachments: (options.files ?? []).map((file) => {
        const attachment = { id: this.snowflake(), filename: file.filename, content_type: file.contentType, bytes: file.bytes };
        this.attachments.set(attachment.id, { ...attachment, channel_id: channelId });
        return {
          ...this.attachmentObject(attachment, channelId),
          ...(file.size !== undefined ? { size: file.size } : {}),
          ...(options.voice ? { duration_secs: options.voice.durationSecs, waveform: options.voice.waveform } : {}),
        };
      }),
      ...(options.voice ? { flags: 1 << 13 } : {}),
      embeds: [],
      pinned: false,
      type: 0,
      nonce: id,
      ...this.replyFields(options.replyTo, channelId),
    };
    if (options.dm) {
      data.channel_type = DM;
    } else {
      data.guild_id = this.guildId;
      data.member = memberObject();
      data.channel_type = this.threads.has(channelId) ? PUBLIC_THREAD : GUILD_TEXT;
    }
    this.userMessages.set(id, channelId);
    this.dispatch('MESSAGE_CREATE', data);
    return id;
  }

  /** The fields of a reply to the bot's message `messageId` (type 19, REPLY); none without one. */
  private replyFields(messageId: string | undefined, channelId: string): Record<string, unknown> {
    if (!messageId) return {};
    const replied = this.messages.find((m) => m.id === messageId);
    return {
      type: 19,
      message_reference: { type: 0, message_id: messageId, channel_id: channelId, guild_id: this.guildId },
      ...(replied ? { referenced_message: this.messageObject(replied) } : {}),
    };
  }

  /**
   * A person's new post in the guild's forum channel (`forumChannelId`, GUILD_FORUM): a thread
   * whose parent is the forum, owned by its author, and its first message, which has the
   * thread's id. Returns the post's (thread's) id.
   */
  forumPost(options: { author: FakeDiscordUser; title: string; content: string; mentionBot?: boolean }): string {
    const id = this.snowflake();
    const thread = {
      id,
      type: PUBLIC_THREAD,
      guild_id: this.guildId,
      parent_id: this.forumChannelId,
      owner_id: options.author.id,
      name: options.title,
      last_message_id: id,
      rate_limit_per_user: 0,
      message_count: 0,
      member_count: 1,
      applied_tags: [],
      thread_metadata: { archived: false, auto_archive_duration: 4320, archive_timestamp: new Date().toISOString(), locked: false },
    };
    this.threads.set(id, thread);
    this.dispatch('THREAD_CREATE', { ...thread, newly_created: true });
    this.userMessage({ author: options.author, content: options.content, channelId: id, id, ...(options.mentionBot ? { mentionBot: true } : {}) });
    return id;
  }

  /** The emoji the bot has on message `messageId` in `channelId`, in the order they were put. */
  reactionsOn(channelId: string, messageId: string): string[] {
    return [...(this.reactions.get(`${channelId}/${messageId}`) ?? [])];
  }

  /** A slash command invocation; returns the interaction id and token. */
  slashCommand(options: {
    user: FakeDiscordUser;
    name: string;
    prompt?: string;
    /** String options by name, as a person filled them in. */
    options?: Record<string, string>;
    channelId?: string;
    dm?: boolean;
  }): { id: string; token: string } {
    const id = this.snowflake();
    const token = `interaction-token-${id}`;
    const channelId = options.channelId ?? this.channelId;
    this.interactionChannels.set(token, channelId);
    this.pendingCallbacks.set(token, 2);
    const command = this.commands.find((c) => c.name === options.name);
    const data: Record<string, unknown> = {
      id,
      application_id: this.applicationId,
      type: 2,
      token,
      version: 1,
      data: {
        id: command?.id ?? this.snowflake(),
        name: options.name,
        type: 1,
        ...(optionsOf(options).length > 0 ? { options: optionsOf(options) } : {}),
      },
      channel_id: channelId,
      app_permissions: '0',
      locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': this.guildId },
      context: options.dm ? 1 : 0,
      attachment_size_limit: 8_388_608,
    };
    if (options.dm) {
      data.user = userObject(options.user);
      data.channel = { id: channelId, type: DM, recipients: [userObject(options.user)] };
    } else {
      data.guild_id = this.guildId;
      data.guild_locale = 'en-US';
      data.member = { ...memberObject(), user: userObject(options.user), permissions: '0' };
      data.channel = this.threads.get(channelId) ?? this.channelObject();
    }
    this.dispatch('INTERACTION_CREATE', data);
    return { id, token };
  }

  /**
   * A press of button `customId` on the bot's message `messageId` by `user`, in the message's
   * channel or thread (a DM when `dm`); returns the interaction id and token.
   */
  buttonPress(options: { user: FakeDiscordUser; customId: string; messageId: string; dm?: boolean }): { id: string; token: string } {
    const stored = this.messages.find((m) => m.id === options.messageId);
    if (!stored) throw new Error(`fake Discord: no message ${options.messageId} to press a button on`);
    const id = this.snowflake();
    const token = `interaction-token-${id}`;
    const channelId = stored.channel_id;
    this.interactionChannels.set(token, channelId);
    this.pendingCallbacks.set(token, 3);
    const user = userObject(options.user);
    const channel = options.dm ? { id: channelId, type: DM, recipients: [user] } : (this.threads.get(channelId) ?? this.channelObject());
    const payload = buttonInteractionPayload({
      id,
      token,
      applicationId: this.applicationId,
      customId: options.customId,
      message: this.messageObject(stored),
      channelId,
      channel,
      user,
      ...(options.dm ? {} : { guildId: this.guildId }),
    });
    this.dispatch('INTERACTION_CREATE', payload);
    return { id, token };
  }

  async close(): Promise<void> {
    for (const socket of this.wss.clients) socket.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private channelObject(): Record<string, unknown> {
    return { id: this.channelId, type: GUILD_TEXT, guild_id: this.guildId, name: 'general', position: 0, permission_overwrites: [], nsfw: false, parent_id: null };
  }

  private forumObject(): Record<string, unknown> {
    return { ...this.channelObject(), id: this.forumChannelId, type: GUILD_FORUM, name: 'help', available_tags: [], default_reaction_emoji: null, default_sort_order: null, default_forum_layout: 0 };
  }

  private sendTo(socket: WebSocket, t: string, d: Record<string, unknown>): void {
    this.sequence += 1;
    socket.send(JSON.stringify({ op: 0, t, s: this.sequence, d }));
  }

  private onGateway(socket: WebSocket, req: IncomingMessage): void {
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    if (query.get('encoding') !== 'json' || query.has('compress')) {
      socket.close(4002, 'fake Discord speaks encoding=json without compression');
      return;
    }
    socket.on('close', () => this.sessions.delete(socket));
    socket.on('message', (raw) => {
      const payload = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> | null };
      if (payload.op === 1) {
        this.heartbeats += 1;
        socket.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
        this.emit('heartbeat');
      } else if (payload.op === 2) {
        this.onIdentify(socket, payload.d ?? {});
      } else if (payload.op === 6) {
        // No resumable sessions here: tell the client to identify afresh.
        socket.send(JSON.stringify({ op: 9, d: false, s: null, t: null }));
      }
    });
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null }));
  }

  private onIdentify(socket: WebSocket, d: Record<string, unknown>): void {
    this.identifies.push(d);
    if (d.token !== this.token) {
      socket.close(4004, 'Authentication failed.');
      return;
    }
    this.sessions.add(socket);
    this.sendTo(socket, 'READY', {
      v: 10,
      user: { ...userObject(this.bot), verified: true, mfa_enabled: false, flags: 0 },
      guilds: [{ id: this.guildId, unavailable: true }],
      session_id: `session-${this.sessions.size}`,
      resume_gateway_url: `ws://127.0.0.1:${this.port}/gateway`,
      shard: [0, 1],
      application: { id: this.applicationId, flags: 0 },
    });
    this.sendTo(socket, 'GUILD_CREATE', guildCreatePayload(this.guildId, [this.channelObject(), this.forumObject()], [...this.threads.values()]));
  }

  /** Files the bot attached to messages in a channel or thread, oldest first. */
  filesIn(channelId: string): Array<FakeDiscordAttachment & { message: FakeDiscordMessage }> {
    return this.messages.filter((m) => m.channel_id === channelId).flatMap((message) => (message.files ?? []).map((file) => ({ ...file, message })));
  }

  /** `GET /attachments/<channel>/<id>/<name>`: the bytes, as Discord's CDN serves them (no token). */
  private serveAttachment(pathname: string, res: ServerResponse): void {
    const match = /^\/attachments\/(\d+)\/(\d+)\//.exec(pathname);
    const attachment = match ? this.attachments.get(match[2]) : undefined;
    if (!attachment || attachment.channel_id !== match![1]) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    res.writeHead(200, { 'content-type': attachment.content_type, 'content-length': attachment.bytes.length }).end(attachment.bytes);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/attachments/')) return this.serveAttachment(url.pathname, res);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks);
    const path = decodeURIComponent(url.pathname).replace(/^\/api\/v10/, '');
    // With files, discord.js sends multipart: the JSON as `payload_json`, each file as `files[n]`.
    const multipart = (req.headers['content-type'] ?? '').includes('multipart/form-data') ? await readMultipart(req.headers, rawBody) : undefined;
    const raw = multipart ? (multipart.fields.payload_json ?? '') : rawBody.toString('utf8');
    const call: DiscordCall = {
      method: req.method ?? 'GET',
      path,
      body: raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined,
      query: url.searchParams,
      authorization: req.headers.authorization,
      ...(multipart ? { files: multipart.files.map((file) => ({ field: file.field, filename: file.filename, content_type: file.mimeType, bytes: file.bytes })) } : {}),
    };
    this.calls.push(call);
    const headers: Record<string, string> = {};
    const reply = (status: number, body?: unknown): void => {
      if (body === undefined) res.writeHead(status, headers).end();
      else res.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const tokenRoute = path.startsWith('/interactions/') || path.startsWith('/webhooks/');
    if (!url.pathname.startsWith('/api/v10/')) reply(404, { message: '404: Not Found', code: 0 });
    else if (!tokenRoute && call.authorization !== `Bot ${this.token}`) reply(401, { message: '401: Unauthorized', code: 0 });
    else {
      const limited = this.rateLimit(call, headers);
      const refusal = limited ? -1 : this.refusals.findIndex((r) => r.method === call.method && r.path.test(path) && r.when(call.body ?? {}));
      const [status, body] = limited ?? (refusal >= 0 ? ((r) => [r.status, r.body] as const)(this.refusals.splice(refusal, 1)[0]) : this.answer(call));
      reply(status, body);
    }
    this.emit('call', call);
  }

  /**
   * Counts an edit against its channel's bucket and sets the X-RateLimit-* headers discord.js
   * reads; returns the 429 to answer when the bucket is spent, else undefined.
   */
  private rateLimit(call: DiscordCall, headers: Record<string, string>): [number, unknown] | undefined {
    const rate = this.editRateLimit;
    const key = editBucketOf(call);
    if (!rate || !key) return undefined;
    const now = Date.now();
    let bucket = this.buckets.get(key);
    if (!bucket || now >= bucket.start + rate.windowMs) this.buckets.set(key, (bucket = { start: now, used: 0 }));
    const resetAfter = (bucket.start + rate.windowMs - now) / 1000;
    headers['x-ratelimit-limit'] = String(rate.limit);
    headers['x-ratelimit-reset'] = ((bucket.start + rate.windowMs) / 1000).toFixed(3);
    headers['x-ratelimit-reset-after'] = resetAfter.toFixed(3);
    headers['x-ratelimit-bucket'] = 'fake-message-edit';
    if (bucket.used >= rate.limit) {
      this.rateLimited += 1;
      headers['x-ratelimit-remaining'] = '0';
      headers['retry-after'] = String(Math.ceil(resetAfter));
      headers['x-ratelimit-scope'] = 'user';
      return [429, { message: 'You are being rate limited.', retry_after: Number(resetAfter.toFixed(3)), global: false }];
    }
    bucket.used += 1;
    headers['x-ratelimit-remaining'] = String(rate.limit - bucket.used);
    const messageId = /\/messages\/([^/]+)$/.exec(call.path)?.[1] ?? '';
    this.edits.push({ at: now, messageId, bucket: key });
    return undefined;
  }

  private answer(call: DiscordCall): [number, unknown?] {
    const { method, path, body = {} } = call;
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/gateway/bot') {
      return [200, { url: `ws://127.0.0.1:${this.port}/gateway`, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 } }];
    }
    if (method === 'GET' && path === '/users/@me') return [200, userObject(this.bot)];
    if (method === 'GET' && path === '/applications/@me') return [200, { id: this.applicationId, name: 'hermes', flags: this.applicationFlags, bot_public: true, owner: userObject(this.owner), team: null }];
    if (method === 'PUT' && (m = /^\/applications\/(\d+)\/commands$/.exec(path))) {
      if (m[1] !== this.applicationId) return [404, { message: 'Unknown Application', code: 10002 }];
      const defs = Array.isArray(call.body) ? (call.body as Record<string, unknown>[]) : [];
      this.commands = defs.map((def) => ({ ...def, id: this.snowflake(), application_id: this.applicationId, version: this.snowflake(), type: 1 }));
      return [200, this.commands];
    }
    if ((call.files ?? []).reduce((sum, file) => sum + file.bytes.length, 0) > UPLOAD_LIMIT) {
      return [413, { message: 'Request entity too large', code: 40005 }];
    }
    if (method === 'POST' && (m = /^\/channels\/(\d+)\/messages$/.exec(path))) {
      return [200, this.store(m[1], String(body.content ?? ''), 'channel', undefined, body.components, call.files)];
    }
    if (method === 'PATCH' && (m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path))) {
      return this.editStored(m[2], body);
    }
    if (method === 'POST' && (m = /^\/channels\/(\d+)\/messages\/(\d+)\/threads$/.exec(path))) {
      // A thread started from a message has that message's id.
      const thread = {
        id: m[2],
        type: PUBLIC_THREAD,
        guild_id: this.guildId,
        parent_id: m[1],
        owner_id: this.bot.id,
        name: String(body.name ?? ''),
        last_message_id: null,
        rate_limit_per_user: 0,
        message_count: 0,
        member_count: 1,
        thread_metadata: { archived: false, auto_archive_duration: body.auto_archive_duration ?? 1440, archive_timestamp: new Date().toISOString(), locked: false },
        member: { id: m[2], user_id: this.bot.id, join_timestamp: new Date().toISOString(), flags: 0 },
      };
      this.threads.set(thread.id, thread);
      this.dispatch('THREAD_CREATE', { ...thread, newly_created: true });
      return [201, thread];
    }
    if (method === 'POST' && /^\/channels\/(\d+)\/typing$/.test(path)) return [204];
    if ((method === 'PUT' || method === 'DELETE') && (m = /^\/channels\/(\d+)\/messages\/(\d+)\/reactions\/([^/]+)\/@me$/.exec(path))) {
      return this.react(method === 'PUT' ? 'put' : 'delete', m[1], m[2], m[3]);
    }
    if (method === 'POST' && (m = /^\/interactions\/(\d+)\/([\w-]+)\/callback$/.exec(path))) return this.callback(m[2], Number(body.type));
    if ((m = /^\/webhooks\/(\d+)\/([\w-]+)\/messages\/(@original|\d+)$/.exec(path)) && method === 'PATCH') {
      const token = m[2];
      if (m[3] === '@original') {
        const original = this.originals.get(token);
        if (original) return this.editStored(original, body);
        const created = this.store(this.channelOfInteraction(token), String(body.content ?? ''), 'interaction', token, body.components);
        this.originals.set(token, String(created.id));
        return [200, created];
      }
      return this.editStored(m[3], body);
    }
    if (method === 'POST' && (m = /^\/webhooks\/(\d+)\/([\w-]+)$/.exec(path))) {
      return [200, this.store(this.channelOfInteraction(m[2]), String(body.content ?? ''), 'interaction', m[2], body.components, call.files)];
    }
    return [404, { message: '404: Not Found', code: 0 }];
  }

  /** An interaction's one callback: 4/5 answer any interaction, 6/7 (update the message) only a component's. */
  private callback(token: string, type: number): [number, unknown?] {
    const kind = this.pendingCallbacks.get(token);
    if (kind === undefined) return [400, { message: 'Interaction has already been acknowledged.', code: 40060 }];
    const allowed = kind === 3 ? [4, 5, 6, 7] : [4, 5];
    if (!allowed.includes(type)) return [400, { message: 'Invalid Form Body', code: 50035 }];
    this.pendingCallbacks.delete(token);
    return [204];
  }

  /** The bot's own reaction put on or taken off a message (204), as Discord answers; 10008 for a message it does not know there. */
  private react(op: 'put' | 'delete', channelId: string, messageId: string, emoji: string): [number, unknown?] {
    const known = this.userMessages.get(messageId) === channelId || this.messages.some((m) => m.id === messageId && m.channel_id === channelId);
    if (!known) return [404, { message: 'Unknown Message', code: 10008 }];
    this.reactionLog.push({ op, channelId, messageId, emoji });
    const key = `${channelId}/${messageId}`;
    const set = this.reactions.get(key) ?? new Set<string>();
    if (op === 'put') set.add(emoji);
    else set.delete(emoji);
    this.reactions.set(key, set);
    return [204];
  }

  private channelOfInteraction(token: string): string {
    return this.interactionChannels.get(token) ?? this.channelId;
  }

  private store(
    channelId: string,
    content: string,
    via: FakeDiscordMessage['via'],
    interactionToken?: string,
    components?: unknown,
    files?: DiscordCall['files'],
  ): Record<string, unknown> {
    const id = this.snowflake();
    const message: FakeDiscordMessage = { id, channel_id: channelId, content, via, ...(interactionToken ? { interactionToken } : {}) };
    if (Array.isArray(components)) message.components = components;
    if (files && files.length > 0) {
      message.files = files.map((file) => ({ id: this.snowflake(), filename: file.filename, content_type: file.content_type, bytes: file.bytes }));
      for (const file of message.files) this.attachments.set(file.id, { ...file, channel_id: channelId });
    }
    this.messages.push(message);
    return this.messageObject(message);
  }

  /** As Discord does: the fields the edit leaves out stay as they were. */
  private editStored(id: string, body: Record<string, unknown>): [number, unknown] {
    const message = this.messages.find((m) => m.id === id);
    if (!message) return [404, { message: 'Unknown Message', code: 10008 }];
    if (typeof body.content === 'string') message.content = body.content;
    if (Array.isArray(body.components)) message.components = body.components;
    return [200, this.messageObject(message)];
  }

  private messageObject(message: FakeDiscordMessage): Record<string, unknown> {
    const attachments = (message.files ?? []).map((file) => this.attachmentObject(file, message.channel_id));
    return botMessageObject(this.bot, { ...message, attachments });
  }
}

/** The options of a slash command invocation (`prompt` for /ask, any others by name), as string options (type 3). */
function optionsOf(options: { prompt?: string; options?: Record<string, string> }): Array<{ name: string; type: number; value: string }> {
  const all = { ...(options.prompt !== undefined ? { prompt: options.prompt } : {}), ...options.options };
  return Object.entries(all).map(([name, value]) => ({ name, type: 3, value }));
}

/** The edit bucket a request counts against (one per channel or interaction), or undefined when it is no edit. */
function editBucketOf(call: DiscordCall): string | undefined {
  if (call.method !== 'PATCH') return undefined;
  const channel = /^\/channels\/(\d+)\/messages\/\d+$/.exec(call.path);
  if (channel) return `channel:${channel[1]}`;
  const webhook = /^\/webhooks\/\d+\/([\w-]+)\/messages\/(@original|\d+)$/.exec(call.path);
  return webhook ? `interaction:${webhook[1]}` : undefined;
}
