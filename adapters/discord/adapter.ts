import { once } from 'node:events';
import { z } from 'zod';
import {
  ChannelType,
  Client,
  Events,
  GatewayIntentBits,
  Partials,
  Routes,
  ThreadAutoArchiveDuration,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type Interaction,
  type Message,
} from 'discord.js';
import type {
  ApprovalCapability,
  FileCapability,
  InboundMessage,
  MessageHandler,
  OutboundFile,
  PlatformAdapter,
  PresenceCapability,
  TurnReaction,
} from '../../src/gateway/types.js';
import type { EventClaims } from '../../src/coordination/event-claims.js';
import { errorMessage, HermesError, silentLogger, type Logger } from '../../src/shared/index.js';
import { approvalRow, fitMessage } from './approval.js';
import { readApprovalButtonData } from '../../src/gateway/approval-buttons.js';
import { commandOptionName, DISCORD_COMMAND_NAMES, DISCORD_COMMANDS } from './commands.js';
import { discordVoice } from './voice.js';
import { discordAttachments, discordUpload, DISCORD_FILE_MAX_BYTES, type DiscordUpload } from './files.js';
import { DISCORD_THREAD } from './thread-ref.js';
import { KeyedQueue } from '../../src/shared/keyed-queue.js';
import { discordThreadKey, stripBotMention, threadName, type DiscordReplyTarget } from './inbound.js';

/** How the Discord adapter connects. */
export interface DiscordAdapterOptions {
  /** The bot token (DISCORD_BOT_TOKEN). */
  token: string;
  /** Another REST root (`platforms.discord.api_url`), e.g. `http://127.0.0.1:PORT/api`; the Gateway URL comes from its `/gateway/bot`. */
  apiUrl?: string;
  logger?: Logger;
  /**
   * Several instances (`coordination.backend: redis`): every gateway connection of the bot gets
   * every event, so a message or an interaction is taken by the instance that claims it first.
   */
  claims?: EventClaims;
}

/** The Discord adapter could not start; the message says what to fix. */
export class DiscordAdapterError extends HermesError {
  override readonly name = 'DiscordAdapterError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DISCORD_ADAPTER', message, options);
  }
}

/**
 * A slash command being answered through its webhook (any instance holding the token may): its
 * deferred reply is edited first, later replies follow up.
 */
interface OpenInteraction {
  token: string;
  answered: boolean;
  /** Ids of the messages this interaction's webhook owns (the answer and follow-ups). */
  messages: Set<string>;
  expiresAt: number;
}

// Interaction tokens live 15 minutes; after that replies go to the channel as plain messages.
const INTERACTION_LIFETIME_MS = 14 * 60_000;
/** `display.reactions` on the message a turn answers: Discord takes any Unicode emoji. */
const REACTIONS: Record<Exclude<TurnReaction, 'none'>, string> = { working: '👀', done: '✅', failed: '❌' };
// Model output must never ping @everyone, roles or users.
const NO_PINGS = { parse: [] as never[] };

/** What a REST call that posts or edits a message answers: the message (only its id is read, validated). */
const sentMessageSchema = z.object({ id: z.string().min(1) });

function sentMessage(response: unknown): { id: string } {
  const parsed = sentMessageSchema.safeParse(response);
  if (!parsed.success) throw new DiscordAdapterError(`Discord answered a message send without a message id (${parsed.error.issues[0]?.message ?? 'unexpected shape'})`);
  return parsed.data;
}

/**
 * Discord through discord.js: a mention in a channel opens a thread from that message and the
 * thread is the session; messages in a bot thread need no mention; DMs are sessions; slash
 * commands are deferred at once and answered by editing the reply and following up.
 */
export class DiscordAdapter implements PlatformAdapter<DiscordReplyTarget> {
  readonly name = 'discord';
  readonly maxMessageLength = 2000;
  readonly thread = DISCORD_THREAD;
  /** Message edits share a per-channel bucket of about 5 per 5 s. */
  readonly streaming = { minEditIntervalMs: 1000 };
  /** Buttons under the request (see `approval.ts`). */
  readonly approvals = { ask: (to, text, id) => this.askApproval(to, text, id) } satisfies ApprovalCapability<DiscordReplyTarget>;
  readonly files = { maxBytes: DISCORD_FILE_MAX_BYTES, send: (to, file) => this.sendFile(to, file) } satisfies FileCapability<DiscordReplyTarget>;
  /** Discord shows "typing…" for about 10 s per request. */
  readonly presence = {
    typing: (to) => this.typing(to),
    typingIntervalMs: 8000,
    react: (target, reaction) => this.react(target, reaction),
  } satisfies PresenceCapability<DiscordReplyTarget>;
  /** Voice notes out (`/voice on`): a voice message with its duration and waveform. */
  readonly voice = discordVoice(() => this.rest());

  private client: Client | undefined;
  private readonly botThreads = new Set<string>();
  private readonly interactions = new Map<string, OpenInteraction>();
  /** Per message, reaction changes run one after another. */
  private readonly reactions = new KeyedQueue();
  private readonly logger: Logger;

  constructor(private readonly options: DiscordAdapterOptions) {
    this.logger = (options.logger ?? silentLogger()).child({ platform: 'discord' });
  }

  /** Logs in over the Gateway, registers the slash commands, then delivers messages to `handler`. */
  async start(handler: MessageHandler<DiscordReplyTarget>, signal: AbortSignal): Promise<void> {
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      // DM channels are not cached before their first message; without this partial those messages are dropped.
      partials: [Partials.Channel],
      allowedMentions: NO_PINGS,
      ...(this.options.apiUrl ? { rest: { api: this.options.apiUrl } } : {}),
    });
    this.client = client;
    client.on(Events.MessageCreate, (message) => void this.guard('message', () => this.onMessage(message, handler)));
    client.on(Events.InteractionCreate, (interaction) => void this.guard('interaction', () => this.onInteraction(interaction, handler)));
    client.on(Events.Error, (error) => this.logger.error({ err: errorMessage(error) }, 'discord client error'));
    client.on(Events.ShardDisconnect, (event) => this.logger.warn({ code: event.code }, 'discord gateway disconnected'));
    const ready = once(client, Events.ClientReady);
    try {
      await client.login(this.options.token);
      await ready;
    } catch (error) {
      await client.destroy();
      this.client = undefined;
      throw new DiscordAdapterError(`Discord login failed (${errorMessage(error)}); check DISCORD_BOT_TOKEN and platforms.discord.api_url.`, {
        cause: error,
      });
    }
    await this.registerCommands(client);
    this.logger.info({ user: client.user?.id }, 'discord connected');
    if (signal.aborted) await this.stop();
    else signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.interactions.clear();
    if (client) await client.destroy();
  }

  async send(replyTo: DiscordReplyTarget, text: string): Promise<{ messageId: string }> {
    const target = replyTo;
    const open = this.openInteraction(target);
    if (open) return { messageId: await this.answerInteraction(open, { content: text, allowed_mentions: NO_PINGS }) };
    const message = sentMessage(await this.rest().post(Routes.channelMessages(target.channelId), {
      body: { content: text, allowed_mentions: NO_PINGS },
    }));
    return { messageId: message.id };
  }

  /** A message with the file attached (`payload_json` and `files[0]`), the caption as its text. */
  private async sendFile(replyTo: DiscordReplyTarget, file: OutboundFile): Promise<{ messageId: string }> {
    const target = replyTo;
    const upload = await discordUpload(file);
    const open = this.openInteraction(target);
    let messageId: string;
    if (open) {
      const body = { ...(upload.content ? { content: upload.content } : {}), attachments: upload.attachments, allowed_mentions: NO_PINGS };
      messageId = await this.answerInteraction(open, body, upload.files);
    } else {
      const message = sentMessage(await this.rest().post(Routes.channelMessages(target.channelId), {
        body: { ...(upload.content ? { content: upload.content } : {}), attachments: upload.attachments, allowed_mentions: NO_PINGS },
        files: upload.files,
      }));
      messageId = message.id;
    }
    if (upload.followingText) await this.send(replyTo, upload.followingText);
    return { messageId };
  }

  /** Sends the request with an action row of approval buttons (see `approval.ts`). */
  private async askApproval(replyTo: DiscordReplyTarget, text: string, requestId: string): Promise<{ messageId: string }> {
    const target = replyTo;
    const content = fitMessage(text, this.maxMessageLength);
    const components = [approvalRow(requestId)];
    const open = this.openInteraction(target);
    if (open) return { messageId: await this.answerInteraction(open, { content, components, allowed_mentions: NO_PINGS }) };
    const message = sentMessage(await this.rest().post(Routes.channelMessages(target.channelId), {
      body: { content, components, allowed_mentions: NO_PINGS },
    }));
    return { messageId: message.id };
  }

  async edit(replyTo: DiscordReplyTarget, messageId: string, text: string): Promise<void> {
    const target = replyTo;
    const open = this.openInteraction(target);
    if (open?.messages.has(messageId)) {
      await this.rest().patch(Routes.webhookMessage(this.applicationId(), open.token, messageId), {
        body: { content: text, components: [], allowed_mentions: NO_PINGS },
        auth: false,
      });
      return;
    }
    // Without `components: []` Discord keeps the old ones (an approval request's buttons).
    await this.rest().patch(Routes.channelMessage(target.channelId, messageId), {
      body: { content: text, components: [], allowed_mentions: NO_PINGS },
    });
  }

  private async typing(replyTo: DiscordReplyTarget): Promise<void> {
    const target = replyTo;
    // A deferred slash command already shows "<bot> is thinking…".
    const open = this.openInteraction(target);
    if (open && !open.answered) return;
    await this.rest()
      .post(Routes.channelTyping(target.channelId))
      .catch((error: unknown) => this.logger.debug({ err: errorMessage(error) }, 'typing failed'));
  }

  /**
   * 👀 on the message the turn answers while it runs, then ✅ or ❌ (`none` takes 👀 off): the
   * bot's own reactions, put and deleted through REST. Slash commands have no message to mark.
   */
  private async react(target: DiscordReplyTarget, reaction: TurnReaction): Promise<void> {
    const on = target.reactTo;
    if (!on) return;
    const rest = this.rest();
    const route = (emoji: string) => Routes.channelMessageOwnReaction(on.channelId, on.messageId, encodeURIComponent(emoji));
    const change = async (): Promise<void> => {
      if (reaction === 'working') {
        await rest.put(route(REACTIONS.working));
        return;
      }
      await rest.delete(route(REACTIONS.working));
      if (reaction !== 'none') await rest.put(route(REACTIONS[reaction]));
    };
    // One message's reactions change in the order asked: a quick turn's ✅ never lands before its 👀.
    return this.reactions.run(`${on.channelId}/${on.messageId}`, change);
  }

  /** A target the outbox kept, read back; undefined unless it has a Discord channel. */
  private rest(): Client['rest'] {
    if (!this.client) throw new DiscordAdapterError('The Discord adapter is not started; call start() before sending.');
    return this.client.rest;
  }

  private openInteraction(target: DiscordReplyTarget): OpenInteraction | undefined {
    if (!target.interactionId) return undefined;
    let open = this.interactions.get(target.interactionId);
    // Deferred by another instance, which passed the message here: answered from here through its token.
    if (!open && target.interactionToken && target.interactionExpiresAt) {
      open = { token: target.interactionToken, answered: false, messages: new Set(), expiresAt: target.interactionExpiresAt };
      this.interactions.set(target.interactionId, open);
    }
    if (open && open.expiresAt > Date.now()) return open;
    this.interactions.delete(target.interactionId);
    return undefined;
  }

  /** Edits the deferred answer the first time, follows up after; returns the message's id. */
  private async answerInteraction(open: OpenInteraction, body: Record<string, unknown>, files?: DiscordUpload['files']): Promise<string> {
    const rest = this.rest();
    const applicationId = this.applicationId();
    const message = sentMessage(
      open.answered
        ? await rest.post(Routes.webhook(applicationId, open.token), { body, files, auth: false, query: new URLSearchParams({ wait: 'true' }) })
        : await rest.patch(Routes.webhookMessage(applicationId, open.token, '@original'), { body, files, auth: false }),
    );
    open.answered = true;
    open.messages.add(message.id);
    return message.id;
  }

  private applicationId(): string {
    const id = this.client?.application?.id;
    if (!id) throw new DiscordAdapterError('The Discord adapter has no application id yet; call start() and wait for it before answering a slash command.');
    return id;
  }

  /** True when this instance takes the event (always, with one instance). */
  private async claim(kind: 'message' | 'interaction', id: string): Promise<boolean> {
    return this.options.claims ? this.options.claims.claim('discord', `${kind}:${id}`) : true;
  }

  private async guard(kind: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.logger.error({ err: errorMessage(error), kind }, 'discord event failed');
    }
  }

  private async registerCommands(client: Client): Promise<void> {
    try {
      await client.application?.commands.set(DISCORD_COMMANDS);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'registering slash commands failed; mentions and DMs still work');
    }
  }

  /**
   * Every message but the bot's own goes to the gateway with the facts its group policy needs
   * (a mention, a reply to the bot or a thread it is in, a bot author): the policy decides.
   * A person's mention in a channel opens a thread from that message, the thread being the
   * session; anything else in a channel (a wake word, `require_mention: false`) is answered in
   * the channel, whose session is the channel.
   */
  private async onMessage(message: Message, handler: MessageHandler<DiscordReplyTarget>): Promise<void> {
    const me = this.client?.user;
    if (!me || message.system || message.author.id === me.id) return;
    const text = stripBotMention(message.content, me.id);
    const files = discordAttachments(message);
    const attachments = files.length > 0 ? { attachments: files } : {};
    const user = { id: message.author.id, name: message.author.username, ...(message.author.bot ? { isBot: true } : {}) };
    if (!message.guildId || message.channel.type === ChannelType.DM) {
      if (!(await this.claim('message', message.id))) return;
      const threadKey = discordThreadKey(null, message.channelId);
      const replyTo: DiscordReplyTarget = { threadKey, channelId: message.channelId, reactTo: { channelId: message.channelId, messageId: message.id } };
      await handler({ platform: 'discord', threadKey, chat: { id: message.channelId, type: 'dm' }, user, text, messageId: message.id, replyTo, ...attachments });
      return;
    }
    const mentioned = message.mentions.users.has(me.id);
    const repliedToBot = message.mentions.repliedUser?.id === me.id;
    const channel = message.channel;
    // Claimed before a thread is opened: one instance opens it.
    if (!(await this.claim('message', message.id))) return;
    let threadId = message.channelId;
    let inBotThread = false;
    if (channel.isThread()) {
      // A thread the bot opened or was called into, or a forum post it answers: no mention needed there.
      inBotThread = this.botThreads.has(channel.id) || channel.ownerId === me.id;
      if (mentioned) this.botThreads.add(channel.id);
    } else if (mentioned && !message.author.bot) {
      threadId = await this.openThread(message, text);
      this.botThreads.add(threadId);
    }
    const threadKey = discordThreadKey(message.guildId, threadId);
    // The message stays in the channel it was written in, also when it opened the thread.
    const replyTo: DiscordReplyTarget = { threadKey, channelId: threadId, reactTo: { channelId: message.channelId, messageId: message.id } };
    const type = threadId === message.channelId && !channel.isThread() ? 'channel' : 'thread';
    // `allowed_chats` may name the channel of a thread (a forum for its posts).
    const parentId = channel.isThread() ? (channel.parentId ?? undefined) : threadId !== message.channelId ? message.channelId : undefined;
    const group = { mentioned, repliedToBot: repliedToBot || inBotThread, ...(parentId ? { parentId } : {}) };
    await handler({ platform: 'discord', threadKey, chat: { id: threadId, type }, user, text, messageId: message.id, replyTo, group, ...attachments });
  }

  /** Opens a thread from the mentioning message; without the permission the channel itself is the session. */
  private async openThread(message: Message, text: string): Promise<string> {
    try {
      const thread = await message.startThread({ name: threadName(text), autoArchiveDuration: ThreadAutoArchiveDuration.OneDay });
      return thread.id;
    } catch (error) {
      this.logger.warn({ err: errorMessage(error), channel: message.channelId }, 'could not open a thread; answering in the channel');
      return message.channelId;
    }
  }

  private async onInteraction(interaction: Interaction, handler: MessageHandler<DiscordReplyTarget>): Promise<void> {
    if (interaction.isButton()) return this.onButton(interaction, handler);
    if (!interaction.isChatInputCommand() || !DISCORD_COMMAND_NAMES.has(interaction.commandName)) return;
    // Only one instance may acknowledge an interaction (a second callback is refused).
    if (!(await this.claim('interaction', interaction.id))) return;
    // Discord drops an interaction that is not acknowledged within 3 s; defer before anything else.
    await interaction.deferReply();
    const now = Date.now();
    for (const [id, open] of this.interactions) if (open.expiresAt <= now) this.interactions.delete(id);
    const expiresAt = now + INTERACTION_LIFETIME_MS;
    this.interactions.set(interaction.id, { token: interaction.token, answered: false, messages: new Set(), expiresAt });
    const text = interaction.commandName === 'ask' ? interaction.options.getString('prompt', true) : commandText(interaction);
    await handler(interactionInbound(interaction, text, { interactionId: interaction.id, interactionToken: interaction.token, interactionExpiresAt: expiresAt }));
  }

  /**
   * A press of an approval button: acknowledged at once without changing the message (type 6), then
   * dispatched as the presser's typed answer to the request it names, in the channel or thread it was pressed
   * in, so the gateway authorizes it like any message and a refused press leaves the buttons usable.
   */
  private async onButton(interaction: ButtonInteraction, handler: MessageHandler<DiscordReplyTarget>): Promise<void> {
    const press = readApprovalButtonData(interaction.customId);
    if (!press || !(await this.claim('interaction', interaction.id))) return;
    await interaction.deferUpdate();
    await handler({ ...interactionInbound(interaction, '', {}), approval: press });
  }
}

/** A gateway command as typed: `/model gpt-5` from `/model name:gpt-5`. */
function commandText(interaction: ChatInputCommandInteraction): string {
  const option = commandOptionName(interaction.commandName);
  const words = option ? (interaction.options.getString(option) ?? '').trim() : '';
  return words ? `/${interaction.commandName} ${words}` : `/${interaction.commandName}`;
}

/** The InboundMessage for `text` from whoever used the interaction, in its channel or thread. */
function interactionInbound(
  interaction: ChatInputCommandInteraction | ButtonInteraction,
  text: string,
  reply: Partial<DiscordReplyTarget>,
): InboundMessage<DiscordReplyTarget> {
  const channelId = interaction.channelId;
  const threadKey = discordThreadKey(interaction.guildId, channelId);
  const type = !interaction.guildId ? 'dm' : interaction.channel?.isThread() ? 'thread' : 'channel';
  return {
    platform: 'discord',
    threadKey,
    chat: { id: channelId, type },
    user: { id: interaction.user.id, name: interaction.user.username },
    text,
    messageId: interaction.id,
    replyTo: { ...reply, threadKey, channelId },
  };
}
