import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseTelegramHtml } from './telegram-html.js';
import { readMultipart, type UploadedPart } from './multipart.js';

/*
 * A fake Telegram Bot API on 127.0.0.1 that speaks the real wire protocol: `/bot<token>/<method>`
 * with JSON, urlencoded or multipart bodies (or query parameters), answering
 * `{ ok: true, result }` or `{ ok: false, error_code, description }` with the real texts.
 * getUpdates long-polls with `offset`, `limit` and `timeout`. Tests inject updates and read
 * what the bot sent.
 */

export interface FakeTelegramOptions {
  token?: string;
  botId?: number;
  botUsername?: string;
  /** Refuse every HTML-formatted text with Telegram's "can't parse entities" error. */
  refuseHtml?: boolean;
  /** Flood control on every n-th call (getUpdates and getMe aside): 429 with `retry_after` (seconds, default 1). */
  floodEvery?: number;
  floodRetryAfter?: number;
  /**
   * Telegram's "about one message update a second per chat": a second sendMessage,
   * editMessageText or sendMessageDraft to one chat within 900 ms is refused with 429 and
   * counted in `rateViolations`.
   */
  enforceRates?: boolean;
  /** Answer sendMessageDraft as an older Bot API does (404 Not Found). */
  noDrafts?: boolean;
  /**
   * A bot's rates as budgets, counted without a clock: past `botBudget` message calls
   * (sendMessage, editMessageText, sendMessageDraft, sendPhoto, sendDocument) in all, or past
   * `chatBudget` to one chat, a call is refused with 429 and counted in `budgetRefusals`.
   */
  botBudget?: number;
  chatBudget?: number;
}

/** A draft the bot streamed into a private chat (sendMessageDraft), as the user last saw it. */
export interface FakeTelegramDraft {
  chat_id: string;
  draft_id: number;
  text: string;
  updates: number;
  /** Gone once the bot sent a message to the chat, as Telegram clears it. */
  cleared: boolean;
}

/** A file the fake holds for getFile and its download path (`/file/bot<token>/<file_path>`). */
export interface FakeTelegramFile {
  file_id: string;
  file_unique_id: string;
  file_path: string;
  bytes: Buffer;
}

/** A file a user sends: shaped as Telegram shapes each kind. */
export interface InjectFileOptions {
  chatId: number;
  kind: 'photo' | 'document' | 'audio' | 'voice' | 'video';
  bytes: Buffer;
  fileName?: string;
  mimeType?: string;
  caption?: string;
  userId?: number;
  chatType?: 'private' | 'group' | 'supergroup';
  threadId?: number;
  /** The `file_size` Telegram announces (default the real length; a test may claim more). */
  announcedSize?: number;
}

/** A photo, document or voice note the bot sent (sendPhoto, sendDocument, sendVoice), as multipart. */
export interface SentTelegramFile {
  method: 'sendPhoto' | 'sendDocument' | 'sendVoice';
  /** sendVoice: the `duration` in seconds the bot gave. */
  duration?: number;
  message_id: number;
  chat_id: string;
  message_thread_id?: number;
  reply_to_message_id?: number;
  caption?: string;
  /** The name the multipart part carried. */
  name: string;
  bytes: Buffer;
}

/** One call the bot made. */
export interface TelegramCall {
  method: string;
  params: Record<string, unknown>;
  at: number;
}

/** A message the bot sent, as the fake stores it (edits update `text`). */
export interface SentTelegramMessage {
  message_id: number;
  chat_id: string;
  message_thread_id?: number;
  /** What the user sees (markup parsed away). */
  text: string;
  /** What the bot sent, before parsing. */
  raw: string;
  parse_mode?: string;
  reply_to_message_id?: number;
  /** The inline keyboard under the message, if any (an edit without one removes it, as Telegram does). */
  reply_markup?: InlineKeyboard;
  edits: number;
  at: number;
}

export interface InjectMessageOptions {
  chatId: number;
  text: string;
  userId?: number;
  firstName?: string;
  chatType?: 'private' | 'group' | 'supergroup';
  /** A forum topic id (sets `is_topic_message`). */
  threadId?: number;
  /** Makes the message a reply to this message id of the bot. */
  replyToBotMessage?: number;
  isForum?: boolean;
  /** Sent by another bot (`from.is_bot`). */
  fromBot?: boolean;
}

export interface InlineKeyboard {
  inline_keyboard: Array<Array<{ text: string; callback_data?: string; url?: string }>>;
}

export interface InjectCallbackQueryOptions {
  /** The bot's message whose button was pressed. */
  messageId: number;
  /** The `callback_data` of the pressed button. */
  data: string;
  userId?: number;
  firstName?: string;
  /**
   * A press from a client that still shows buttons the bot has since removed (the edit had
   * not reached it yet): allowed even though the message has no such button any more.
   */
  staleView?: boolean;
}

/** An answerCallbackQuery the bot made. */
export interface CallbackAnswer {
  callback_query_id: string;
  text?: string;
  show_alert?: boolean;
}

type Update = Record<string, unknown> & { update_id: number };

interface Poller {
  offset: number;
  limit: number;
  respond: (updates: Update[]) => void;
  /** Ends the poll with an error (another poller, a revoked token). */
  fail: (code: number, description: string) => void;
  timer: NodeJS.Timeout;
}

class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: { retry_after?: number },
  ) {
    super(description);
  }
}

/** Methods that count against a chat's update rate. */
const RATED = new Set(['sendMessage', 'editMessageText', 'sendMessageDraft']);
/** Methods that count against `botBudget` and `chatBudget`. */
const BUDGETED = new Set([...RATED, 'sendPhoto', 'sendDocument', 'sendVoice']);
/** Telegram's reaction emoji (a subset: the ones a bot is likely to use). */
const REACTION_EMOJI = new Set(['👀', '👍', '👎', '🔥', '🎉', '🤔', '👌', '🙏', '✍', '🤷', '😢']);

const MAX_TEXT = 4096;

export class FakeTelegramApi {
  readonly token: string;
  readonly botId: number;
  readonly botUsername: string;
  refuseHtml: boolean;
  readonly calls: TelegramCall[] = [];
  readonly sent: SentTelegramMessage[] = [];
  readonly updates: Update[] = [];
  commands: unknown[] = [];
  webhook: { url: string; secret_token?: string } | undefined;
  /** Files users sent or the bot uploaded, by file_id. */
  readonly files = new Map<string, FakeTelegramFile>();
  /** Photos and documents the bot sent, in order. */
  readonly sentFiles: SentTelegramFile[] = [];
  /** Callback queries answered, in order. */
  readonly callbackAnswers: CallbackAnswer[] = [];
  /** The update types the bot asked for (`allowed_updates`); others are dropped, as Telegram does. */
  allowedUpdates: string[] | undefined;
  /** Ids of callback queries sent to the bot and not yet answered. */
  private openQueries = new Set<string>();
  private nextQueryId = 1;
  private nextUpdateId = 1;
  private nextMessageId = 1000;
  private nextUserMessageId = 1;
  private nextFileId = 1;
  private poller: Poller | undefined;
  private server: Server | undefined;
  private listeners = new Set<() => void>();
  private subscribers = new Set<(call: TelegramCall) => void>();
  private revoked = false;
  /** Set false to stop recording calls (long benchmarks). */
  recordCalls = true;
  /** Drafts by `<chat>:<draft_id>`. */
  readonly drafts = new Map<string, FakeTelegramDraft>();
  /** Reactions the bot set, by `<chat>:<message_id>` (the latest set). */
  readonly reactions = new Map<string, string[]>();
  /**
   * Calls this returns true for are held: never answered (and never carried out) until the
   * connection closes, as a request lost in flight. A test kills the gateway meanwhile.
   */
  hold: ((method: string, params: Record<string, unknown>) => boolean) | undefined;
  /** Calls held so far. */
  held = 0;
  /** Calls refused for coming too fast (`enforceRates`). */
  rateViolations = 0;
  /** 429s given by `floodEvery`. */
  floods = 0;
  /** 429s given past `botBudget` or `chatBudget`. */
  budgetRefusals = 0;
  /** Message calls let through by the budgets, in all and by chat. */
  budgetSpent = 0;
  readonly budgetSpentBy = new Map<string, number>();
  /** The budgets (`FakeTelegramOptions`); a test raises them as Telegram's clock would refill them. */
  botBudget: number | undefined;
  chatBudget: number | undefined;
  floodEvery: number | undefined;
  private floodRetryAfter: number;
  private enforceRates: boolean;
  private noDrafts: boolean;
  private counted = 0;
  private lastRated = new Map<string, number>();
  /** Calls to refuse once each, in order (see `refuseNext`). */
  private refusals: Array<{ method: string; when: (params: Record<string, unknown>) => boolean; code: number; description: string }> = [];

  constructor(options: FakeTelegramOptions = {}) {
    this.token = options.token ?? '123456:TEST-token';
    this.botId = options.botId ?? 123456;
    this.botUsername = options.botUsername ?? 'hermes_test_bot';
    this.refuseHtml = options.refuseHtml ?? false;
    this.floodEvery = options.floodEvery;
    this.floodRetryAfter = options.floodRetryAfter ?? 1;
    this.enforceRates = options.enforceRates ?? false;
    this.noDrafts = options.noDrafts ?? false;
    this.botBudget = options.botBudget;
    this.chatBudget = options.chatBudget;
  }

  /** The drafts of one chat, in the order they were started. */
  draftsIn(chatId: number | string): FakeTelegramDraft[] {
    return [...this.drafts.values()].filter((draft) => draft.chat_id === String(chatId));
  }

  /** The `apiRoot` to give grammy, e.g. `http://127.0.0.1:40123`. */
  get apiRoot(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('FakeTelegramApi: not started');
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async close(): Promise<void> {
    if (this.poller) this.finishPoll([]);
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Queues a raw update; a waiting getUpdates returns it at once. */
  injectUpdate(update: Omit<Update, 'update_id'>): Update {
    const full = { update_id: this.nextUpdateId++, ...update } as Update;
    const type = Object.keys(update)[0];
    if (this.allowedUpdates && this.allowedUpdates.length > 0 && !this.allowedUpdates.includes(type)) return full;
    this.updates.push(full);
    if (this.poller) {
      const ready = this.pendingFrom(this.poller.offset, this.poller.limit);
      if (ready.length > 0) this.finishPoll(ready);
    }
    return full;
  }

  /** Queues a user's text message (DM by default) and returns its update. */
  injectMessage(options: InjectMessageOptions): Update {
    const type = options.chatType ?? 'private';
    const userId = options.userId ?? 1001;
    const chat: Record<string, unknown> =
      type === 'private'
        ? { id: options.chatId, type, first_name: options.firstName ?? 'Ada' }
        : { id: options.chatId, type, title: 'Team', ...(options.isForum || options.threadId ? { is_forum: true } : {}) };
    const message: Record<string, unknown> = {
      message_id: this.nextUserMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat,
      from: { id: userId, is_bot: options.fromBot ?? false, first_name: options.firstName ?? 'Ada' },
      text: options.text,
    };
    const entities = [...options.text.matchAll(/@\w+|^\/\w+(@\w+)?/g)].map((match) => ({
      type: match[0].startsWith('/') ? 'bot_command' : 'mention',
      offset: match.index,
      length: match[0].length,
    }));
    if (entities.length > 0) message.entities = entities;
    if (options.threadId !== undefined) {
      message.message_thread_id = options.threadId;
      message.is_topic_message = true;
    }
    if (options.replyToBotMessage !== undefined) {
      const original = this.sent.find((sent) => sent.message_id === options.replyToBotMessage);
      message.reply_to_message = {
        message_id: options.replyToBotMessage,
        date: Math.floor(Date.now() / 1000),
        chat,
        from: this.me(),
        text: original?.text ?? '',
      };
    }
    return this.injectUpdate({ message });
  }

  /** Keeps `bytes` as a file the bot can getFile and download. */
  addFile(bytes: Buffer, ext = 'bin', folder = 'documents'): FakeTelegramFile {
    const n = this.nextFileId++;
    const file: FakeTelegramFile = {
      file_id: `BQACAgIAAxkBAAI${String(n).padStart(6, '0')}`,
      file_unique_id: `AgAD${String(n).padStart(4, '0')}`,
      file_path: `${folder}/file_${n}.${ext}`,
      bytes,
    };
    this.files.set(file.file_id, file);
    return file;
  }

  /**
   * Queues a user's photo, document, audio, voice note or video, shaped as Telegram sends it:
   * a photo as `photo: PhotoSize[]` (a thumbnail and the full size), the others as an object
   * with file_id, file_size, mime_type and (documents, audio, video) file_name, and the text as `caption`.
   */
  injectFile(options: InjectFileOptions): Update {
    const type = options.chatType ?? 'private';
    const userId = options.userId ?? 1001;
    const chat: Record<string, unknown> =
      type === 'private' ? { id: options.chatId, type, first_name: 'Ada' } : { id: options.chatId, type, title: 'Team', ...(options.threadId ? { is_forum: true } : {}) };
    const size = options.announcedSize ?? options.bytes.length;
    const folders = { photo: 'photos', document: 'documents', audio: 'music', voice: 'voice', video: 'videos' } as const;
    const ext = options.fileName?.split('.').pop() ?? ({ photo: 'jpg', document: 'bin', audio: 'mp3', voice: 'oga', video: 'mp4' } as const)[options.kind];
    const file = this.addFile(options.bytes, ext, folders[options.kind]);
    const ids = { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: size };
    const message: Record<string, unknown> = {
      message_id: this.nextUserMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat,
      from: { id: userId, is_bot: false, first_name: 'Ada' },
    };
    if (options.kind === 'photo') {
      const thumb = this.addFile(options.bytes.subarray(0, Math.min(64, options.bytes.length)), 'jpg', 'photos');
      message.photo = [
        { file_id: thumb.file_id, file_unique_id: thumb.file_unique_id, file_size: thumb.bytes.length, width: 90, height: 60 },
        { ...ids, width: 1280, height: 853 },
      ];
    } else {
      const mime = options.mimeType ?? ({ document: 'application/octet-stream', audio: 'audio/mpeg', voice: 'audio/ogg', video: 'video/mp4' } as const)[options.kind];
      const named = options.kind === 'voice' ? {} : options.fileName !== undefined ? { file_name: options.fileName } : {};
      const extra = options.kind === 'voice' || options.kind === 'audio' ? { duration: 3 } : options.kind === 'video' ? { duration: 3, width: 640, height: 360 } : {};
      message[options.kind] = { ...ids, ...named, mime_type: mime, ...extra };
    }
    if (options.caption !== undefined) {
      message.caption = options.caption;
      const entities = [...options.caption.matchAll(/@\w+/g)].map((match) => ({ type: 'mention', offset: match.index, length: match[0].length }));
      if (entities.length > 0) message.caption_entities = entities;
    }
    if (options.threadId !== undefined) {
      message.message_thread_id = options.threadId;
      message.is_topic_message = true;
    }
    return this.injectUpdate({ message });
  }

  /** Files the bot sent to one chat (and topic), oldest first. */
  filesSentTo(chatId: number | string, threadId?: number): SentTelegramFile[] {
    return this.sentFiles.filter((sent) => sent.chat_id === String(chatId) && (threadId === undefined || sent.message_thread_id === threadId));
  }

  /**
   * Queues a press of an inline button under one of the bot's messages, shaped as Telegram
   * sends it: `{ callback_query: { id, from, message, chat_instance, data } }`.
   */
  injectCallbackQuery(options: InjectCallbackQueryOptions): Update {
    const sent = this.sent.find((message) => message.message_id === options.messageId);
    if (!sent) throw new Error(`FakeTelegramApi: the bot sent no message ${options.messageId}`);
    const buttons = (sent.reply_markup?.inline_keyboard ?? []).flat();
    if (!options.staleView && !buttons.some((button) => button.callback_data === options.data)) {
      throw new Error(`FakeTelegramApi: message ${options.messageId} has no button with data "${options.data}"`);
    }
    const id = `${this.botId}${String(this.nextQueryId++).padStart(6, '0')}`;
    this.openQueries.add(id);
    const userId = options.userId ?? 1001;
    return this.injectUpdate({
      callback_query: {
        id,
        from: { id: userId, is_bot: false, first_name: options.firstName ?? 'Ada' },
        message: this.messageObject(sent),
        chat_instance: `instance-${sent.chat_id}`,
        data: options.data,
      },
    });
  }

  /** Messages the bot sent to one chat (and topic), oldest first. */
  sentTo(chatId: number | string, threadId?: number): SentTelegramMessage[] {
    return this.sent.filter(
      (sent) => sent.chat_id === String(chatId) && (threadId === undefined || sent.message_thread_id === threadId),
    );
  }

  /** Revokes the token, as @BotFather's /revoke does: every call, a waiting poll too, gets 401. */
  revoke(): void {
    this.revoked = true;
    this.poller?.fail(401, 'Unauthorized');
  }

  /** Calls `listener` after every call the bot makes (benchmarks); returns the unsubscribe. */
  subscribe(listener: (call: TelegramCall) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  /** Calls of one method. */
  callsOf(method: string): TelegramCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Resolves when `check()` holds, re-checking after every call the bot makes. */
  waitFor(check: () => boolean, what = 'a condition'): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`FakeTelegramApi: gave up waiting for ${what}`));
      }, 25_000);
      const listener = () => {
        if (!check()) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve();
      };
      this.listeners.add(listener);
    });
  }

  /** Refuses the next call to `method` whose parameters match `when` with a Bot API error, as Telegram does. */
  refuseNext(method: string, code: number, description: string, when: (params: Record<string, unknown>) => boolean = () => true): void {
    this.refusals.push({ method, when, code, description });
  }

  me(): Record<string, unknown> {
    return {
      id: this.botId,
      is_bot: true,
      first_name: 'Hermes',
      username: this.botUsername,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname.startsWith('/file/')) return this.download(url.pathname, res);
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    try {
      if (!match) throw new ApiError(404, 'Not Found');
      if (match[1] !== this.token || this.revoked) throw new ApiError(401, 'Unauthorized');
      const params = await readParams(req, url);
      const method = match[2];
      const call = { method, params, at: Date.now() };
      if (this.recordCalls) this.calls.push(call);
      if (method === 'getUpdates') return this.getUpdates(params, req, res);
      if (this.hold?.(method, params)) {
        this.held++;
        return;
      }
      this.limit(method, params);
      const refusal = this.refusals.findIndex((r) => r.method === method && r.when(params));
      if (refusal >= 0) {
        const [refused] = this.refusals.splice(refusal, 1);
        throw new ApiError(refused.code, refused.description);
      }
      send(res, 200, { ok: true, result: await this.call(method, params) });
      for (const subscriber of this.subscribers) subscriber(call);
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError(400, `Bad Request: ${(error as Error).message}`);
      send(res, apiError.code, {
        ok: false,
        error_code: apiError.code,
        description: apiError.description,
        ...(apiError.parameters ? { parameters: apiError.parameters } : {}),
      });
    } finally {
      for (const listener of [...this.listeners]) listener();
    }
  }

  /** Flood control as the test asked for it: every n-th call, and updates to one chat coming too fast. */
  private limit(method: string, params: Record<string, unknown>): void {
    if (method === 'getMe') return;
    this.counted++;
    if (this.floodEvery && this.counted % this.floodEvery === 0) {
      this.floods++;
      throw new ApiError(429, `Too Many Requests: retry after ${this.floodRetryAfter}`, { retry_after: this.floodRetryAfter });
    }
    this.spendBudget(method, params);
    if (!this.enforceRates || !RATED.has(method)) return;
    const chat = String(params.chat_id ?? '');
    const now = Date.now();
    const last = this.lastRated.get(chat);
    if (last !== undefined && now - last < 900) {
      this.rateViolations++;
      throw new ApiError(429, 'Too Many Requests: retry after 1', { retry_after: 1 });
    }
    this.lastRated.set(chat, now);
  }

  /** `botBudget` and `chatBudget`: a refused call spends nothing. */
  private spendBudget(method: string, params: Record<string, unknown>): void {
    if ((this.botBudget === undefined && this.chatBudget === undefined) || !BUDGETED.has(method)) return;
    const chat = String(params.chat_id ?? '');
    const spentHere = this.budgetSpentBy.get(chat) ?? 0;
    if ((this.botBudget !== undefined && this.budgetSpent >= this.botBudget) || (this.chatBudget !== undefined && spentHere >= this.chatBudget)) {
      this.budgetRefusals++;
      throw new ApiError(429, 'Too Many Requests: retry after 120', { retry_after: 120 });
    }
    this.budgetSpent++;
    this.budgetSpentBy.set(chat, spentHere + 1);
  }

  /** sendMessageDraft: private chats only, a non-zero draft_id, 0–4096 characters after parsing. */
  private sendMessageDraft(params: Record<string, unknown>): unknown {
    if (this.noDrafts) throw new ApiError(404, 'Not Found');
    const chatId = requireChat(params);
    if (Number(chatId) < 0) throw new ApiError(400, 'Bad Request: TEXTDRAFT_PEER_INVALID');
    const draftId = Number(params.draft_id);
    if (!Number.isInteger(draftId) || draftId === 0) throw new ApiError(400, 'Bad Request: DRAFT_ID_INVALID');
    const text = typeof params.text === 'string' && params.text !== '' ? this.visibleText(params) : '';
    const key = `${chatId}:${draftId}`;
    const draft = this.drafts.get(key) ?? { chat_id: chatId, draft_id: draftId, text: '', updates: 0, cleared: false };
    draft.text = text;
    draft.updates++;
    draft.cleared = false;
    this.drafts.set(key, draft);
    return true;
  }

  private setMessageReaction(params: Record<string, unknown>): unknown {
    const chatId = requireChat(params);
    const message = Number(params.message_id);
    const reaction = asArray(params.reaction) as Array<{ type?: string; emoji?: string }>;
    for (const item of reaction) {
      if (item.type !== 'emoji' || !item.emoji || !REACTION_EMOJI.has(item.emoji)) throw new ApiError(400, 'Bad Request: REACTION_INVALID');
    }
    this.reactions.set(`${chatId}:${message}`, reaction.map((item) => item.emoji!));
    return true;
  }

  /** `GET /file/bot<token>/<file_path>`: the bytes of a file getFile described. */
  private download(pathname: string, res: ServerResponse): void {
    const match = /^\/file\/bot([^/]+)\/(.+)$/.exec(pathname);
    const file = match && match[1] === this.token && !this.revoked ? [...this.files.values()].find((f) => f.file_path === decodeURIComponent(match[2])) : undefined;
    if (!file) {
      send(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
    res.end(file.bytes);
  }

  /** getFile: the file's path for the download; a bot may download up to 20 MB, as Telegram's cloud server allows. */
  private getFile(params: Record<string, unknown>): unknown {
    const file = this.files.get(String(params.file_id ?? ''));
    if (!file) throw new ApiError(400, 'Bad Request: invalid file_id');
    if (file.bytes.length > 20 * 1024 * 1024) throw new ApiError(400, 'Bad Request: file is too big');
    return { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.bytes.length, file_path: file.file_path };
  }

  /**
   * sendPhoto / sendDocument with the file as a multipart part (`attach://` or the field
   * itself), as grammY uploads an InputFile; limits as Telegram's: a photo up to 10 MB, a
   * document up to 50 MB, a caption up to 1024 characters.
   */
  private sendFile(method: 'sendPhoto' | 'sendDocument' | 'sendVoice', params: Record<string, unknown>): unknown {
    const chatId = requireChat(params);
    const field = method === 'sendPhoto' ? 'photo' : method === 'sendVoice' ? 'voice' : 'document';
    let part = params[field];
    if (typeof part === 'string' && part.startsWith('attach://')) part = params[part.slice('attach://'.length)];
    if (!isUpload(part)) throw new ApiError(400, `Bad Request: there is no ${field} in the request`);
    const bytes = part.bytes;
    if (method === 'sendPhoto' && bytes.length > 10 * 1024 * 1024) throw new ApiError(400, 'Bad Request: PHOTO_INVALID_DIMENSIONS');
    if (bytes.length > 50 * 1024 * 1024) throw new ApiError(413, 'Request Entity Too Large');
    const caption = typeof params.caption === 'string' ? params.caption : undefined;
    if (caption !== undefined && caption.length > 1024) throw new ApiError(400, 'Bad Request: message caption is too long');
    const replyParameters = params.reply_parameters as { message_id?: number } | undefined;
    const sent: SentTelegramFile = {
      method,
      message_id: this.nextMessageId++,
      chat_id: chatId,
      ...(params.message_thread_id !== undefined ? { message_thread_id: Number(params.message_thread_id) } : {}),
      ...(replyParameters?.message_id !== undefined ? { reply_to_message_id: replyParameters.message_id } : {}),
      ...(caption !== undefined ? { caption } : {}),
      ...(params.duration !== undefined ? { duration: Number(params.duration) } : {}),
      name: part.filename || field,
      bytes,
    };
    this.sentFiles.push(sent);
    const stored = this.addFile(bytes, sent.name.split('.').pop() ?? 'bin', method === 'sendPhoto' ? 'photos' : 'documents');
    const id = Number(chatId);
    const media =
      method === 'sendPhoto'
        ? { photo: [{ file_id: stored.file_id, file_unique_id: stored.file_unique_id, file_size: bytes.length, width: 1280, height: 853 }] }
        : { document: { file_id: stored.file_id, file_unique_id: stored.file_unique_id, file_size: bytes.length, file_name: sent.name } };
    return {
      message_id: sent.message_id,
      date: Math.floor(Date.now() / 1000),
      chat: id > 0 ? { id, type: 'private', first_name: 'Ada' } : { id, type: 'supergroup', title: 'Team' },
      from: this.me(),
      ...media,
      ...(caption !== undefined ? { caption } : {}),
    };
  }

  private async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'getMe':
        return this.me();
      case 'getFile':
        return this.getFile(params);
      case 'sendPhoto':
      case 'sendDocument':
      case 'sendVoice':
        return this.sendFile(method, params);
      case 'sendMessage':
        return this.sendMessage(params);
      case 'sendMessageDraft':
        return this.sendMessageDraft(params);
      case 'setMessageReaction':
        return this.setMessageReaction(params);
      case 'editMessageText':
        return this.editMessageText(params);
      case 'editMessageReplyMarkup':
        return this.editMessageReplyMarkup(params);
      case 'answerCallbackQuery':
        return this.answerCallbackQuery(params);
      case 'sendChatAction':
        requireChat(params);
        if (typeof params.action !== 'string') throw new ApiError(400, 'Bad Request: action is empty');
        return true;
      case 'setMyCommands':
        this.commands = asArray(params.commands);
        return true;
      case 'getMyCommands':
        return this.commands;
      case 'deleteMyCommands':
        this.commands = [];
        return true;
      case 'setWebhook':
        if (typeof params.url !== 'string') throw new ApiError(400, 'Bad Request: bad webhook: Failed to resolve host');
        this.webhook = { url: params.url, secret_token: params.secret_token as string | undefined };
        if (params.allowed_updates !== undefined) this.allowedUpdates = asArray(params.allowed_updates).map(String);
        return true;
      case 'deleteWebhook':
        this.webhook = undefined;
        return true;
      case 'getWebhookInfo':
        return { url: this.webhook?.url ?? '', has_custom_certificate: false, pending_update_count: 0 };
      case 'close':
      case 'logOut':
        return true;
      default:
        throw new ApiError(404, 'Not Found');
    }
  }

  private visibleText(params: Record<string, unknown>): string {
    const raw = params.text;
    if (typeof raw !== 'string' || raw.length === 0) throw new ApiError(400, 'Bad Request: message text is empty');
    let text = raw;
    if (params.parse_mode === 'HTML') {
      if (this.refuseHtml) {
        const tag = /<\/?([a-zA-Z-]*)/.exec(raw);
        throw new ApiError(
          400,
          tag
            ? `Bad Request: can't parse entities: Unsupported start tag "${tag[1]}" at byte offset ${Buffer.byteLength(raw.slice(0, tag.index))}`
            : "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 0",
        );
      }
      const parsed = parseTelegramHtml(raw);
      if (!parsed.ok) throw new ApiError(400, parsed.description);
      text = parsed.text;
    } else if (params.parse_mode !== undefined) {
      throw new ApiError(400, `Bad Request: unsupported parse_mode "${String(params.parse_mode)}" in this fake`);
    }
    if (text.trim().length === 0) throw new ApiError(400, 'Bad Request: message text is empty');
    if (text.length > MAX_TEXT) throw new ApiError(400, 'Bad Request: message is too long');
    return text;
  }

  private sendMessage(params: Record<string, unknown>): unknown {
    const chatId = requireChat(params);
    const text = this.visibleText(params);
    const replyParameters = params.reply_parameters as { message_id?: number } | undefined;
    const message: SentTelegramMessage = {
      message_id: this.nextMessageId++,
      chat_id: chatId,
      message_thread_id: params.message_thread_id === undefined ? undefined : Number(params.message_thread_id),
      text,
      raw: String(params.text),
      parse_mode: params.parse_mode as string | undefined,
      reply_to_message_id: replyParameters?.message_id ?? (params.reply_to_message_id as number | undefined),
      reply_markup: inlineKeyboard(params.reply_markup),
      edits: 0,
      at: Date.now(),
    };
    this.sent.push(message);
    // A message from the bot ends the chat's drafts, as Telegram clears them.
    for (const draft of this.drafts.values()) if (draft.chat_id === chatId) draft.cleared = true;
    return this.messageObject(message);
  }

  private editMessageText(params: Record<string, unknown>): unknown {
    const chatId = requireChat(params);
    const message = this.sent.find((sent) => sent.chat_id === chatId && sent.message_id === Number(params.message_id));
    if (!message) throw new ApiError(400, 'Bad Request: message to edit not found');
    const text = this.visibleText(params);
    if (text === message.text) {
      throw new ApiError(
        400,
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    message.text = text;
    message.raw = String(params.text);
    message.parse_mode = params.parse_mode as string | undefined;
    message.reply_markup = inlineKeyboard(params.reply_markup);
    message.edits++;
    return { ...this.messageObject(message), edit_date: Math.floor(Date.now() / 1000) };
  }

  private editMessageReplyMarkup(params: Record<string, unknown>): unknown {
    const chatId = requireChat(params);
    const message = this.sent.find((sent) => sent.chat_id === chatId && sent.message_id === Number(params.message_id));
    if (!message) throw new ApiError(400, 'Bad Request: message to edit not found');
    const markup = inlineKeyboard(params.reply_markup);
    if (JSON.stringify(markup) === JSON.stringify(message.reply_markup)) {
      throw new ApiError(
        400,
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    message.reply_markup = markup;
    message.edits++;
    return { ...this.messageObject(message), edit_date: Math.floor(Date.now() / 1000) };
  }

  private answerCallbackQuery(params: Record<string, unknown>): unknown {
    const id = params.callback_query_id;
    if (typeof id !== 'string' || id === '') throw new ApiError(400, 'Bad Request: QUERY_ID_INVALID');
    // A query can be answered once; Telegram refuses a second answer (or an unknown id) so.
    if (!this.openQueries.delete(id)) throw new ApiError(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
    this.callbackAnswers.push({
      callback_query_id: id,
      ...(typeof params.text === 'string' ? { text: params.text } : {}),
      ...(params.show_alert !== undefined ? { show_alert: params.show_alert === true || params.show_alert === 'true' } : {}),
    });
    return true;
  }

  private messageObject(message: SentTelegramMessage): Record<string, unknown> {
    const id = Number(message.chat_id);
    return {
      message_id: message.message_id,
      date: Math.floor(message.at / 1000),
      chat: id > 0 ? { id, type: 'private', first_name: 'Ada' } : { id, type: 'supergroup', title: 'Team' },
      from: this.me(),
      text: message.text,
      ...(message.message_thread_id !== undefined ? { message_thread_id: message.message_thread_id, is_topic_message: true } : {}),
      ...(message.reply_markup ? { reply_markup: message.reply_markup } : {}),
    };
  }

  private pendingFrom(offset: number, limit: number): Update[] {
    return this.updates.filter((update) => update.update_id >= offset).slice(0, limit);
  }

  private getUpdates(params: Record<string, unknown>, req: IncomingMessage, res: ServerResponse): void {
    if (this.webhook) {
      throw new ApiError(409, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first");
    }
    if (params.allowed_updates !== undefined) this.allowedUpdates = asArray(params.allowed_updates).map(String);
    const offset = Number(params.offset ?? 0);
    const limit = Math.max(1, Math.min(100, Number(params.limit ?? 100)));
    const timeout = Math.max(0, Number(params.timeout ?? 0));
    // Confirming an offset forgets the updates before it, as Telegram does.
    if (offset > 0) {
      const keep = this.updates.filter((update) => update.update_id >= offset);
      this.updates.splice(0, this.updates.length, ...keep);
    }
    // A second poller ends the first, as the real API does.
    this.poller?.fail(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running');
    const ready = this.pendingFrom(offset, limit);
    if (ready.length > 0 || timeout === 0) {
      send(res, 200, { ok: true, result: ready });
      return;
    }
    const poller: Poller = {
      offset,
      limit,
      respond: (updates) => send(res, 200, { ok: true, result: updates }),
      fail: (code, description) => {
        this.dropPoller(poller);
        send(res, code, { ok: false, error_code: code, description });
      },
      timer: setTimeout(() => this.finishPoll([]), timeout * 1000),
    };
    this.poller = poller;
    req.on('close', () => this.dropPoller(poller));
    res.on('close', () => this.dropPoller(poller));
  }

  private dropPoller(poller: Poller): void {
    clearTimeout(poller.timer);
    if (this.poller === poller) this.poller = undefined;
  }

  private finishPoll(updates: Update[]): void {
    const poller = this.poller;
    if (!poller) return;
    this.dropPoller(poller);
    poller.respond(updates);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function requireChat(params: Record<string, unknown>): string {
  if (params.chat_id === undefined || params.chat_id === '') throw new ApiError(400, 'Bad Request: chat_id is empty');
  return String(params.chat_id);
}

/**
 * The inline keyboard of a send or edit, checked as Telegram checks it; undefined for none.
 * (Reply keyboards are not modelled: this bot never sends them.)
 */
function inlineKeyboard(value: unknown): InlineKeyboard | undefined {
  if (value === undefined || value === '') return undefined;
  const markup = (typeof value === 'string' ? JSON.parse(value) : value) as Partial<InlineKeyboard>;
  if (!Array.isArray(markup.inline_keyboard) || !markup.inline_keyboard.every((row) => Array.isArray(row))) {
    throw new ApiError(400, 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays');
  }
  for (const button of markup.inline_keyboard.flat()) {
    if (typeof button?.text !== 'string' || button.text === '') throw new ApiError(400, 'Bad Request: BUTTON_TEXT_INVALID');
    const data = button.callback_data;
    if (data !== undefined && (typeof data !== 'string' || Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64)) {
      throw new ApiError(400, 'Bad Request: BUTTON_DATA_INVALID');
    }
  }
  return { inline_keyboard: markup.inline_keyboard };
}

function isUpload(value: unknown): value is UploadedPart {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedPart).bytes);
}

function asArray(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return JSON.parse(value) as unknown[];
  return [];
}

/** Query parameters plus a JSON, urlencoded or multipart body, as the Bot API accepts. */
async function readParams(req: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  if (body.length === 0) return params;
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    try {
      return { ...params, ...(JSON.parse(body.toString('utf8')) as Record<string, unknown>) };
    } catch {
      throw new ApiError(400, "Bad Request: can't parse JSON");
    }
  }
  if (type.includes('multipart/form-data')) {
    const { fields, files } = await readMultipart(req.headers, body);
    for (const [key, value] of Object.entries(fields)) params[key] = parseFormValue(value);
    for (const file of files) params[file.field] = file;
    return params;
  }
  if (type.includes('application/x-www-form-urlencoded')) {
    const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body }).formData();
    form.forEach((value, key) => {
      params[key] = typeof value === 'string' ? parseFormValue(value) : value;
    });
    return params;
  }
  return params;
}

/** Form fields carry JSON for objects and arrays (`reply_markup`, `commands`). */
function parseFormValue(value: string): unknown {
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}
