import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Bot, GrammyError, webhookCallback, type Context, type Transformer } from 'grammy';
import { autoRetry } from '@grammyjs/auto-retry';
import { run, sequentialize, type RunnerHandle } from '@grammyjs/runner';
import type { Message } from 'grammy/types';
import { portRangeText, readPort, type HermesConfig } from '../../src/config/index.js';
import { COMMANDS, GatewayError } from '../../src/gateway/index.js';
import type {
  ApprovalCapability,
  AttachmentDescription,
  DeliveryVerdict,
  FileCapability,
  InboundAttachment,
  InboundMessage,
  MessageHandler,
  OutboundFile,
  PlatformAdapter,
  PresenceCapability,
  ReplyTarget,
  StreamedMessage,
  StreamingCapability,
  TurnReaction,
} from '../../src/gateway/index.js';
import type { PlatformCoordination } from '../../src/coordination/index.js';
import { errorMessage } from '../../src/shared/errors.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import { TELEGRAM_THREAD } from './thread-ref.js';
import { approvalKeyboard, pressToInbound, inboundFrom } from './approval.js';
import { markdownToTelegramHtml } from './html.js';
import { draftMessage, telegramVerdict, TELEGRAM_EDIT_INTERVAL_MS } from './stream.js';
import { telegramVoice } from './voice.js';
import { reopenTelegramAttachment, sendTelegramFile, telegramAttachments, TELEGRAM_FILE_MAX_BYTES, type TelegramFileSource } from './files.js';
import { telegramThrottler, type SharedRatesOptions, type TelegramRates, type TelegramThrottler } from './throttler.js';
import { telegramConfig } from './config.js';

export interface TelegramWebhookOptions {
  /** The public URL Telegram posts updates to (`TELEGRAM_WEBHOOK_URL`); its path is served. */
  url: string;
  /** Checked against the `X-Telegram-Bot-Api-Secret-Token` header (`TELEGRAM_WEBHOOK_SECRET`). */
  secret?: string;
  /** Local port to listen on (`TELEGRAM_WEBHOOK_PORT`, else `PORT`, else 8443); 0 picks one. */
  port: number;
  /** The address to listen on (`platforms.telegram.webhook_host`); loopback when unset. */
  host?: string;
}

export interface TelegramAdapterOptions {
  /** The bot token from @BotFather (`TELEGRAM_BOT_TOKEN`). */
  token: string;
  /** Another Bot API server (`platforms.telegram.api_root`); empty means Telegram's. */
  apiRoot?: string;
  /** Webhook mode instead of long polling. */
  webhook?: TelegramWebhookOptions;
  logger?: Logger;
  /** getUpdates long-polling timeout in seconds (default 30). */
  pollTimeoutSeconds?: number;
  /** Other limits than Telegram's (tests). */
  rates?: Partial<TelegramRates>;
  /** false: no client-side rate limits (`platforms.telegram.throttle`; a Bot API without limits). */
  throttle?: boolean;
  /** Keep the bot's rates together with its other instances (the coordination's shared rate limits). */
  sharedRates?: SharedRatesOptions;
}

/** Where a Telegram reply goes. */
export interface TelegramReplyTarget extends ReplyTarget {
  chatId: number;
  /** The forum topic, when the chat has topics. */
  messageThreadId?: number;
  /** In groups the bot replies to the message that addressed it. */
  replyToMessageId?: number;
  /** The message the turn answers (its reactions, `display.reactions`). */
  messageId?: number;
}

/** Calls that put or change a message in a chat: these keep to Telegram's per-chat rates. */
const THROTTLED = new Set(['sendMessage', 'editMessageText', 'sendMessageDraft', 'sendPhoto', 'sendDocument', 'editMessageReplyMarkup']);

/** Telegram accepts only its own set of reaction emoji: 👀 is in it, ✅ and ❌ are not. */
const REACTIONS: Record<Exclude<TurnReaction, 'none'>, '👀' | '👍' | '👎'> = { working: '👀', done: '👍', failed: '👎' };

const ALLOWED_UPDATES = ['message', 'callback_query'] as const;

/**
 * Telegram through grammY: long polling with @grammyjs/runner (ordered per chat, chats in
 * parallel) or a webhook that checks Telegram's secret-token header. A DM is one session per
 * chat; in groups the bot answers when mentioned or replied to; forum topics are sessions of
 * their own. Replies go out as HTML, and as plain text when Telegram refuses the markup.
 * Approval requests carry inline buttons: Approve once, This session, Always, Deny.
 */
export class TelegramAdapter implements PlatformAdapter<TelegramReplyTarget> {
  readonly name = 'telegram';
  readonly maxMessageLength = 4096;
  readonly thread = TELEGRAM_THREAD;
  /** Telegram tolerates about one edit a second per chat. */
  readonly streaming = {
    minEditIntervalMs: TELEGRAM_EDIT_INTERVAL_MS,
    open: (target, resume) => this.openStream(target, resume),
  } satisfies StreamingCapability<TelegramReplyTarget>;
  /** A press comes back as the presser's typed answer to this request. */
  readonly approvals = { ask: (to, text, id) => this.askApproval(to, text, id) } satisfies ApprovalCapability<TelegramReplyTarget>;
  /** The cloud Bot API takes uploads of up to 50 MB. */
  readonly files = {
    maxBytes: TELEGRAM_FILE_MAX_BYTES,
    send: (to, file) => this.sendFile(to, file),
    reopen: (ref, described) => this.reopenAttachment(ref, described),
  } satisfies FileCapability<TelegramReplyTarget>;
  /** "typing…" shows for five seconds. */
  readonly presence = {
    typing: (to) => this.typing(to),
    typingIntervalMs: 4500,
    react: (target, reaction) => this.react(target, reaction),
  } satisfies PresenceCapability<TelegramReplyTarget>;
  /** Voice notes out (`/voice on`): sendVoice. */
  readonly voice = telegramVoice(() => this.bot.api);
  readonly bot: Bot;
  /** The Bot API root grammY calls (seen on its first call): file downloads go there too. */
  private apiRoot = '';
  private readonly fileSource: TelegramFileSource;
  private readonly logger: Logger;
  private readonly throttler: TelegramThrottler;
  private runner: RunnerHandle | undefined;
  private server: Server | undefined;
  private stopping: Promise<void> | undefined;
  /** Private chats where Telegram refused a message draft: their replies send and edit instead. */
  private readonly noDrafts = new Set<number>();
  private draftsRefused = false;

  constructor(private readonly options: TelegramAdapterOptions) {
    if (!options.token) {
      throw new GatewayError('TELEGRAM_NO_TOKEN', 'telegram: no bot token; set TELEGRAM_BOT_TOKEN to the token @BotFather gave you');
    }
    this.logger = (options.logger ?? silentLogger()).child({ platform: 'telegram' });
    const buildUrl = (root: string, token: string, method: string, env: 'prod' | 'test') => {
      this.apiRoot = root;
      return `${root}/bot${token}/${env === 'test' ? 'test/' : ''}${method}`;
    };
    this.bot = new Bot(options.token, { client: { ...(options.apiRoot ? { apiRoot: options.apiRoot.replace(/\/+$/, '') } : {}), buildUrl } });
    this.fileSource = { api: this.bot.api, token: options.token, root: () => this.apiRoot };
    this.bot.catch((error) => this.logger.error({ err: error.error, update: error.ctx.update.update_id }, 'telegram update failed'));
    // The runner is told to be silent; failed API calls are logged here instead.
    this.bot.api.config.use(async (prev, method, payload, signal) => {
      try {
        return await prev(method, payload, signal);
      } catch (error) {
        if (!signal?.aborted) this.logger.warn({ method, err: error }, 'telegram API call failed');
        throw error;
      }
    });
    // Flood control (429) waits out retry_after and server errors are tried again, inside the
    // throttler's slot for the chat, so nothing else goes to that chat meanwhile.
    this.bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 60 }));
    this.throttler = telegramThrottler({ rates: options.rates, shared: options.sharedRates, logger: this.logger });
    const throttle = this.throttler.transformer;
    const throttled: Transformer = (prev, method, payload, signal) =>
      THROTTLED.has(method) ? throttle(prev, method, payload, signal) : prev(method, payload, signal);
    if (options.throttle !== false) this.bot.api.config.use(throttled);
  }

  /** The webhook settings, when the adapter runs in webhook mode. */
  get webhookOptions(): TelegramWebhookOptions | undefined {
    return this.options.webhook;
  }

  /** The webhook server's address once listening (tests use port 0). */
  get webhookPort(): number | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }

  async start(handler: MessageHandler<TelegramReplyTarget>, signal: AbortSignal): Promise<void> {
    try {
      await this.bot.init();
    } catch (error) {
      throw new GatewayError(
        'TELEGRAM_CONNECT_FAILED',
        `telegram: getMe failed (${errorMessage(error)}); check TELEGRAM_BOT_TOKEN` +
          (this.options.apiRoot ? ` and platforms.telegram.api_root (${this.options.apiRoot})` : ''),
        { cause: error },
      );
    }
    // Updates of one chat are handled in order; different chats run in parallel. The
    // handler returns as soon as the gateway has taken the message.
    this.bot.use(sequentialize((ctx: Context) => ctx.chat?.id.toString()));
    const deliver = async (message: InboundMessage<TelegramReplyTarget>) => {
      try {
        await handler(message);
      } catch (error) {
        this.logger.error({ err: error, thread: message.threadKey }, 'gateway refused a telegram message');
      }
    };
    this.bot.on(['message:text', 'message:photo', 'message:document', 'message:audio', 'message:voice', 'message:video'], async (ctx) => {
      const message = this.toInbound(ctx.message);
      if (message) await deliver(message);
    });
    // A press of an approval button is answered at once (the client shows a spinner until then)
    // and then goes to the gateway as the presser's typed answer, authorized as usual.
    this.bot.on('callback_query', async (ctx) => {
      const message = pressToInbound(ctx.callbackQuery, this.name);
      await ctx
        .answerCallbackQuery(message ? {} : { text: 'This button is no longer in use.' })
        .catch((error: unknown) => this.logger.warn({ err: error }, 'answerCallbackQuery failed'));
      if (message) await deliver(message);
    });
    await this.bot.api
      .setMyCommands(COMMANDS.map((command) => ({ command: command.name, description: command.description })))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'setMyCommands failed; the command menu may be stale'));
    if (this.options.webhook) await this.startWebhook(this.options.webhook);
    else await this.startPolling();
    signal.addEventListener(
      'abort',
      () => void this.stop().catch((error: unknown) => this.logger.warn({ err: error }, 'telegram stop failed')),
      { once: true },
    );
    this.logger.info({ bot: this.bot.botInfo.username, mode: this.options.webhook ? 'webhook' : 'polling' }, 'telegram started');
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const runner = this.runner;
      this.runner = undefined;
      if (runner) await runner.stop();
      const server = this.server;
      this.server = undefined;
      if (server) {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
      await this.throttler.close();
    })();
    return this.stopping;
  }

  async send(replyTo: TelegramReplyTarget, text: string): Promise<{ messageId: string }> {
    return this.sendWith(replyTo, text, {});
  }

  /** Sends the request with the approval buttons; a press comes back as the presser's typed answer to this request. */
  private async askApproval(replyTo: TelegramReplyTarget, text: string, requestId: string): Promise<{ messageId: string }> {
    return this.sendWith(replyTo, text, { reply_markup: approvalKeyboard(requestId) });
  }

  private async sendWith(replyTo: TelegramReplyTarget, text: string, extra: { reply_markup?: ReturnType<typeof approvalKeyboard> }): Promise<{ messageId: string }> {
    const target = replyTo;
    const other = {
      ...extra,
      ...(target.messageThreadId !== undefined ? { message_thread_id: target.messageThreadId } : {}),
      ...(target.replyToMessageId !== undefined
        ? { reply_parameters: { message_id: target.replyToMessageId, allow_sending_without_reply: true } }
        : {}),
    };
    const sent = await this.withPlainFallback(
      (html) => this.bot.api.sendMessage(target.chatId, html, { ...other, parse_mode: 'HTML' }),
      () => this.bot.api.sendMessage(target.chatId, text, other),
      text,
    );
    return { messageId: String(sent.message_id) };
  }

  /** sendPhoto for pictures that fit, else sendDocument, in the chat and topic, with the caption. */
  private async sendFile(replyTo: TelegramReplyTarget, file: OutboundFile): Promise<{ messageId: string }> {
    return sendTelegramFile(this.bot.api, replyTo, file, (text) => this.send(replyTo, text));
  }

  async edit(replyTo: TelegramReplyTarget, messageId: string, text: string): Promise<void> {
    const target = replyTo;
    const id = Number(messageId);
    try {
      await this.withPlainFallback(
        (html) => this.bot.api.editMessageText(target.chatId, id, html, { parse_mode: 'HTML' }),
        () => this.bot.api.editMessageText(target.chatId, id, text),
        text,
      );
    } catch (error) {
      // Nothing changed: not an error for us.
      if (error instanceof GrammyError && error.description.includes('message is not modified')) return;
      throw error;
    }
  }

  /**
   * A private chat's reply streams as a message draft; groups and chats that refused drafts
   * get a message sent once and edited (the gateway's default).
   */
  private openStream(target: TelegramReplyTarget, resume?: { messageId: string }): StreamedMessage | undefined {
    if (resume || target.chatId < 0 || this.draftsRefused || this.noDrafts.has(target.chatId)) return undefined;
    return draftMessage(
      {
        api: this.bot.api,
        adapter: this,
        send: (to, text) => this.send(to, text),
        refused: (chatId, error) => {
          this.noDrafts.add(chatId);
          if (error instanceof GrammyError && error.error_code === 404) this.draftsRefused = true;
          this.logger.info({ chat: chatId, err: error }, 'telegram refused a message draft; replies here are sent and edited');
        },
      },
      target,
    );
  }

  /** 👀 while the turn runs, then 👍 or 👎 (Telegram's own reaction set), on the message it answers. */
  private async react(target: TelegramReplyTarget, reaction: TurnReaction): Promise<void> {
    if (target.messageId === undefined) return;
    await this.bot.api.setMessageReaction(target.chatId, target.messageId, reaction === 'none' ? [] : [{ type: 'emoji', emoji: REACTIONS[reaction] }]);
  }

  deliveryVerdict(error: unknown): DeliveryVerdict {
    return telegramVerdict(error);
  }

  /** A target the outbox kept, read back; undefined unless it has a Telegram chat id. */
  private async typing(replyTo: TelegramReplyTarget): Promise<void> {
    const target = replyTo;
    await this.bot.api.sendChatAction(
      target.chatId,
      'typing',
      target.messageThreadId !== undefined ? { message_thread_id: target.messageThreadId } : {},
    );
  }

  /** A file another instance of this bot received (passed with its message): fetched again by its file id. */
  private async reopenAttachment(ref: unknown, described: AttachmentDescription): Promise<InboundAttachment | undefined> {
    return reopenTelegramAttachment(ref, described, this.fileSource);
  }

  /** The inbound message for a Telegram message, or undefined when the bot should not answer. */
  private toInbound(message: Message): InboundMessage<TelegramReplyTarget> | undefined {
    const attachments = telegramAttachments(message, this.fileSource);
    const me = this.bot.botInfo;
    if ((!message.text && attachments.length === 0) || !message.from || message.from.id === me.id) return undefined;
    const isPrivate = message.chat.type === 'private';
    // A file's text is its caption. In groups the facts go to the gateway's group policy (a
    // mention, a reply to the bot); a command addressed to another bot is not ours at all.
    let text = message.text ?? message.caption ?? '';
    let group: InboundMessage['group'];
    if (!isPrivate) {
      const mention = new RegExp(`@${me.username}\\b`, 'i');
      const commandFor = /^\/\w+@(\w+)/.exec(text)?.[1]?.toLowerCase();
      if (commandFor !== undefined && commandFor !== me.username.toLowerCase()) return undefined;
      group = { mentioned: mention.test(text) || commandFor !== undefined, repliedToBot: message.reply_to_message?.from?.id === me.id };
      text = text.replace(new RegExp(`^(/\\w+)@${me.username}\\b`, 'i'), '$1').replace(mention, '').replace(/\s{2,}/g, ' ').trim();
      if (!text && attachments.length === 0) return undefined;
    }
    const inbound = inboundFrom(message, message.from, text, String(message.message_id), this.name);
    const facts = { ...inbound, user: { ...inbound.user, ...(message.from.is_bot ? { isBot: true } : {}) }, ...(group ? { group } : {}) };
    return attachments.length > 0 ? { ...facts, attachments } : facts;
  }

  /** Sends as HTML; when Telegram cannot parse the markup, sends the original text plain. */
  private async withPlainFallback<T>(html: (text: string) => Promise<T>, plain: () => Promise<T>, text: string): Promise<T> {
    try {
      return await html(markdownToTelegramHtml(text));
    } catch (error) {
      if (!(error instanceof GrammyError) || error.error_code !== 400 || !error.description.includes("can't parse entities")) throw error;
      this.logger.warn({ description: error.description }, 'telegram refused the HTML markup; sending plain text');
      return plain();
    }
  }

  private async startPolling(): Promise<void> {
    // getUpdates does not work while a webhook is set (a previous webhook deployment).
    await this.bot.api.deleteWebhook();
    this.runner = run(this.bot, {
      runner: {
        fetch: { timeout: this.options.pollTimeoutSeconds ?? 30, allowed_updates: ALLOWED_UPDATES },
        silent: true,
        retryInterval: 'exponential',
      },
    });
    // Polling ends on its own only for errors it cannot retry (a revoked token, a second
    // instance polling): say so instead of an unhandled rejection taking the gateway down.
    this.runner.task()?.catch((error: unknown) =>
      this.logger.error({ err: error }, 'telegram polling stopped; check TELEGRAM_BOT_TOKEN and that only one gateway polls this bot'),
    );
  }

  private async startWebhook(options: TelegramWebhookOptions): Promise<void> {
    const path = new URL(options.url).pathname;
    const callback = webhookCallback(this.bot, 'http', { secretToken: options.secret, onTimeout: 'return' });
    const server = createServer((req, res) => {
      const requestPath = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (req.method !== 'POST' || requestPath !== path) {
        res.writeHead(404).end();
        return;
      }
      callback(req, res).catch((error: unknown) => {
        this.logger.error({ err: error }, 'telegram webhook request failed');
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
    });
    this.server = server;
    await this.bot.api.setWebhook(options.url, {
      allowed_updates: ALLOWED_UPDATES,
      ...(options.secret ? { secret_token: options.secret } : {}),
    });
  }
}

/**
 * The Telegram adapter when `platforms.telegram.enabled` and TELEGRAM_BOT_TOKEN are set, else
 * undefined. TELEGRAM_WEBHOOK_URL switches to webhook mode (listening on
 * `platforms.telegram.webhook_host`, port TELEGRAM_WEBHOOK_PORT, else PORT, else 8443); without TELEGRAM_WEBHOOK_SECRET a random
 * secret is set with the webhook at each start, so the header is always checked.
 */
export function createTelegramAdapter(options: {
  config: HermesConfig;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Several instances: the bot's rates are kept together (`rateLimits`). */
  coordination?: PlatformCoordination;
}): TelegramAdapter | undefined {
  const env = options.env ?? {};
  const telegram = telegramConfig(options.config);
  const token = env.TELEGRAM_BOT_TOKEN?.trim();
  if (!telegram.enabled || !token) return undefined;
  const url = env.TELEGRAM_WEBHOOK_URL?.trim();
  let webhook: TelegramWebhookOptions | undefined;
  if (url) {
    const port = readPort(env.TELEGRAM_WEBHOOK_PORT?.trim() || env.PORT?.trim() || '8443', { anyFree: true });
    if (port === undefined) {
      throw new GatewayError('TELEGRAM_BAD_PORT', `telegram: TELEGRAM_WEBHOOK_PORT (or PORT) must be ${portRangeText({ anyFree: true })}, got "${env.TELEGRAM_WEBHOOK_PORT ?? env.PORT}"`);
    }
    webhook = { url, port, host: telegram.webhook_host, secret: env.TELEGRAM_WEBHOOK_SECRET?.trim() || randomBytes(24).toString('hex') };
  }
  const rates = options.coordination?.rateLimits;
  const connection = telegram.throttle ? rates?.shared() : undefined;
  const sharedRates = rates && connection ? { connection, prefix: rates.prefix, botId: botIdOf(token) } : undefined;
  return new TelegramAdapter({ token, apiRoot: telegram.api_root || undefined, webhook, logger: options.logger, sharedRates, throttle: telegram.throttle });
}

/** A bot token is `<bot id>:<secret>`; the id names what instances of the bot share. */
export function botIdOf(token: string): string {
  const id = /^(\d+):/.exec(token)?.[1];
  if (!id) throw new GatewayError('TELEGRAM_BAD_TOKEN', 'telegram: TELEGRAM_BOT_TOKEN is not a bot token (<bot id>:<secret>, as @BotFather gives it); check the token');
  return id;
}
