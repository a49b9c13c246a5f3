import type { AddressInfo } from 'node:net';
import { slackVoice } from './voice.js';
import type { Server } from 'node:http';
import { App, type AppOptions } from '@slack/bolt';
import type {
  ApprovalCapability,
  DeliveryVerdict,
  FileCapability,
  MessageHandler,
  OutboundFile,
  PlatformAdapter,
  PresenceCapability,
  StreamedMessage,
  StreamingCapability,
  TurnNotice,
  TurnReaction,
} from '../../src/gateway/types.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { errorMessage, HermesError, silentLogger, type Logger } from '../../src/shared/index.js';
import { readSlackEvent, type SlackIdentity, type SlackMessageEvent, type SlackReplyTarget } from './inbound.js';
import { approvalBlocks, readApprovalPress, SLACK_APPROVAL_ACTION } from './approval.js';
import { sendSlackFile, slackAttachments, SLACK_FILE_MAX_BYTES } from './files.js';
import { markdownToMrkdwn } from './mrkdwn.js';
import { RecentSet } from './recent-set.js';
import type { SlackEventClaims } from './event-claims.js';
import { slackLogger } from './slack-logger.js';
import { chatStream, platformError, slackVerdict, SLACK_STREAM_INTERVAL_MS } from './stream.js';
import { readHermesCommand, slackSlashCommandSchema } from './slash-command.js';
import { SLACK_THREAD } from './thread-ref.js';

/** How the Slack adapter connects. */
export interface SlackAdapterOptions {
  /** `xoxb-…` (SLACK_BOT_TOKEN). */
  botToken: string;
  /** `socket` needs `appToken` (SLACK_APP_TOKEN); `http` needs `signingSecret` (SLACK_SIGNING_SECRET). */
  mode: 'socket' | 'http';
  appToken?: string;
  signingSecret?: string;
  /** HTTP mode: the port Bolt's receiver listens on (0 picks a free one; see `httpPort`). */
  port?: number;
  /** HTTP mode: the interface to listen on; all interfaces when absent. */
  host?: string;
  /** Another Web API root (`platforms.slack.api_url`), e.g. a fake on 127.0.0.1. */
  apiUrl?: string;
  logger?: Logger;
  /** Several instances: a message is taken by the one that claims it first (`coordination.backend: redis`). */
  claims?: SlackEventClaims;
}

/** A Slack adapter could not start; the message says which token or setting to fix. */
export class SlackAdapterError extends HermesError {
  override readonly name = 'SlackAdapterError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('SLACK_ADAPTER', message, options);
  }
}

// The reaction that stands in for "typing…": Slack has no typing indicator for bots.
const WORKING_REACTION = 'hourglass_flowing_sand';
/** `display.reactions` on Slack: 👀 while the turn runs, then ✅ or ❌. */
const TURN_REACTIONS: Record<Exclude<TurnReaction, 'none'>, string> = { working: 'eyes', done: 'white_check_mark', failed: 'x' };

/**
 * Slack through Bolt: app mentions open a session per thread, later messages in a thread the
 * bot is part of continue it, DMs are sessions of their own, replies go into the thread.
 */
export class SlackAdapter implements PlatformAdapter<SlackReplyTarget> {
  readonly name = 'slack';
  readonly thread = SLACK_THREAD;
  /**
   * 3,000: the most a section block's text may hold, and under the 4,000 Slack advises for a
   * message's `text`; it leaves room for the `&amp;` escaping mrkdwn adds after splitting.
   */
  readonly maxMessageLength = 3000;
  /** chat.update is a Tier 3 method (about 50 a minute); one edit per 1.2 s stays under it. */
  readonly streaming = {
    minEditIntervalMs: Math.max(1200, SLACK_STREAM_INTERVAL_MS),
    open: (target, resume) => this.openStream(target, resume),
  } satisfies StreamingCapability<SlackReplyTarget>;
  /** Buttons under the request (see `approval.ts`). */
  readonly approvals = { ask: (to, text, id) => this.askApproval(to, text, id) } satisfies ApprovalCapability<SlackReplyTarget>;
  readonly files = { maxBytes: SLACK_FILE_MAX_BYTES, send: (to, file) => this.sendFile(to, file) } satisfies FileCapability<SlackReplyTarget>;
  readonly presence = {
    typing: (to) => this.typing(to),
    react: (target, reaction) => this.react(target, reaction),
  } satisfies PresenceCapability<SlackReplyTarget>;
  /** Voice notes out (`/voice on`): an audio file in the thread. */
  readonly voice = slackVoice((target, file) => this.sendFile(target, file));

  private app: App | undefined;
  private me: SlackIdentity | undefined;
  private server: Server | undefined;
  private readonly seen = new RecentSet(10_000);
  /** `channel:thread_ts` of threads the bot takes part in (true) or was found not to (false). */
  private readonly threads = new Map<string, boolean>();
  private readonly reacted = new RecentSet(2_000);
  /** Threads whose assistant status says "is working…". */
  private readonly statusShown = new Set<string>();
  /** The turn reaction on each asking message (`display.reactions`). */
  private readonly reactions = new Map<string, string>();
  /** The user's latest thread with the bot per channel: where `/hermes <command>` in that channel acts. */
  private readonly lastThread = new Map<string, SlackReplyTarget>();
  private noStreams = false;
  private noAssistantStatus = false;
  private readonly logger: Logger;

  constructor(private readonly options: SlackAdapterOptions) {
    this.logger = (options.logger ?? silentLogger()).child({ platform: 'slack' });
  }

  /** HTTP mode: the port the receiver listens on, once started. */
  get httpPort(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  /** Connects (Socket Mode or HTTP), learns the bot's own ids, then delivers messages to `handler`. */
  async start(handler: MessageHandler<SlackReplyTarget>, signal: AbortSignal): Promise<void> {
    const app = this.createApp();
    this.app = app;
    const auth = await app
      .init()
      .then(() => app.client.auth.test())
      .catch((error: unknown) => {
        throw new SlackAdapterError(`Slack rejected SLACK_BOT_TOKEN (auth.test: ${errorMessage(error)}); check the token.`, {
          cause: error,
        });
      });
    this.me = { botUserId: String(auth.user_id), botId: auth.bot_id, teamId: String(auth.team_id) };
    this.listen(app, handler);
    const started: unknown =
      this.options.mode === 'http'
        ? await app.start({ port: this.options.port ?? 3000, host: this.options.host })
        : await app.start();
    if (this.options.mode === 'http') this.server = started as Server;
    this.logger.info({ mode: this.options.mode, botUserId: this.me.botUserId }, 'slack connected');
    if (signal.aborted) await this.stop();
    else signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  async stop(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    this.server = undefined;
    if (app) await app.stop().catch((error: unknown) => this.logger.warn({ err: errorMessage(error) }, 'slack stop'));
  }

  async send(replyTo: SlackReplyTarget, text: string): Promise<{ messageId: string }> {
    const target = replyTo;
    const result = await this.client().chat.postMessage({
      channel: target.channel,
      text: markdownToMrkdwn(text),
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
    if (target.threadTs) this.threads.set(`${target.channel}:${target.threadTs}`, true);
    return { messageId: String(result.ts) };
  }

  /** Uploads a file into the conversation's thread through Slack's external upload flow, with the caption. */
  private async sendFile(replyTo: SlackReplyTarget, file: OutboundFile): Promise<{ messageId: string }> {
    const target = replyTo;
    const sent = await sendSlackFile(this.client(), target, file);
    if (target.threadTs) this.threads.set(`${target.channel}:${target.threadTs}`, true);
    return sent;
  }

  /** Posts the request in the conversation's thread with the approval buttons (see `approval.ts`). */
  private async askApproval(replyTo: SlackReplyTarget, text: string, requestId: string): Promise<{ messageId: string }> {
    const target = replyTo;
    const mrkdwn = markdownToMrkdwn(text);
    const result = await this.client().chat.postMessage({
      channel: target.channel,
      // `text` is the notification and the fallback where blocks are not shown.
      text: mrkdwn,
      blocks: approvalBlocks(mrkdwn, requestId),
      ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
      unfurl_links: false,
      unfurl_media: false,
    });
    if (target.threadTs) this.threads.set(`${target.channel}:${target.threadTs}`, true);
    return { messageId: String(result.ts) };
  }

  async edit(replyTo: SlackReplyTarget, messageId: string, text: string): Promise<void> {
    const target = replyTo;
    // Without `blocks: []` Slack keeps the old blocks (an approval request's buttons).
    await this.client().chat.update({ channel: target.channel, ts: messageId, text: markdownToMrkdwn(text), blocks: [] });
  }

  /**
   * A reply in a thread streams as a Slack chat stream (`chat.startStream`, `appendStream`,
   * `stopStream`); a DM's main timeline, and a workspace without chat streams, get a message
   * sent once and edited (the gateway's default).
   */
  private openStream(target: SlackReplyTarget, resume?: { messageId: string }): StreamedMessage | undefined {
    if (!target.threadTs || this.noStreams) return undefined;
    return chatStream(
      {
        client: () => this.client(),
        adapter: this,
        refused: (error) => {
          this.noStreams = true;
          this.logger.info({ error: platformError(error) ?? errorMessage(error) }, 'slack refused a chat stream; replies are sent and edited');
        },
      },
      target,
      resume,
    );
  }

  deliveryVerdict(error: unknown): DeliveryVerdict {
    return slackVerdict(error);
  }

  /** A target the outbox kept, read back; undefined unless it names a channel and a message. */
  /** 👀 on the asking message while the turn runs, then ✅ or ❌ (`display.reactions`). */
  private async react(target: SlackReplyTarget, reaction: TurnReaction): Promise<void> {
    const key = `${target.channel}:${target.messageTs}`;
    const before = this.reactions.get(key);
    const name = reaction === 'none' ? undefined : TURN_REACTIONS[reaction];
    if (before === name) return;
    if (before) await this.client().reactions.remove({ channel: target.channel, timestamp: target.messageTs, name: before }).catch(() => undefined);
    if (name) {
      this.reactions.set(key, name);
      await this.client().reactions.add({ channel: target.channel, timestamp: target.messageTs, name });
    } else {
      this.reactions.delete(key);
    }
  }

  /**
   * Says the bot is working: the assistant thread status ("is working…") where Slack has it
   * for this app and thread, else an hourglass reaction on the asking message, once per turn;
   * both go when the turn ends.
   */
  private async typing(replyTo: SlackReplyTarget): Promise<void> {
    const target = replyTo;
    if (target.threadTs && !this.noAssistantStatus) {
      try {
        await this.client().assistant.threads.setStatus({ channel_id: target.channel, thread_ts: target.threadTs, status: 'is working…' });
        this.statusShown.add(`${target.channel}:${target.threadTs}`);
        return;
      } catch (error) {
        this.noAssistantStatus = true;
        this.logger.info({ error: platformError(error) ?? errorMessage(error) }, 'no assistant thread status here; the hourglass reaction shows work instead');
      }
    }
    const key = `${target.channel}:${target.messageTs}`;
    if (!this.reacted.add(key)) return;
    await this.client()
      .reactions.add({ channel: target.channel, timestamp: target.messageTs, name: WORKING_REACTION })
      .catch((error: unknown) => this.logger.debug({ err: errorMessage(error) }, 'reactions.add failed'));
  }

  onAgentEvent(replyTo: SlackReplyTarget, event: AgentEvent | TurnNotice): void {
    if (event.type !== 'turn_finished') return;
    const target = replyTo;
    const thread = `${target.channel}:${target.threadTs ?? ''}`;
    if (this.statusShown.delete(thread)) {
      void this.app?.client.assistant.threads
        .setStatus({ channel_id: target.channel, thread_ts: target.threadTs!, status: '' })
        .catch((error: unknown) => this.logger.debug({ err: errorMessage(error) }, 'clearing the assistant status failed'));
    }
    const key = `${target.channel}:${target.messageTs}`;
    if (!this.reacted.has(key)) return;
    this.reacted.delete(key);
    void this.app?.client.reactions
      .remove({ channel: target.channel, timestamp: target.messageTs, name: WORKING_REACTION })
      .catch((error: unknown) => this.logger.debug({ err: errorMessage(error) }, 'reactions.remove failed'));
  }

  private client(): App['client'] {
    if (!this.app) throw new SlackAdapterError('The Slack adapter is not started; call start() before sending.');
    return this.app.client;
  }

  private createApp(): App {
    const { botToken, mode, appToken, signingSecret, apiUrl } = this.options;
    const logger = slackLogger(this.logger);
    const clientOptions: AppOptions['clientOptions'] = apiUrl ? { slackApiUrl: apiUrl } : {};
    // deferInitialization: otherwise Bolt checks the token in the constructor and a wrong one
    // becomes an unhandled rejection instead of an error from start().
    if (mode === 'socket') {
      if (!appToken) throw new SlackAdapterError('Slack Socket Mode needs SLACK_APP_TOKEN (xapp-…); set it, or use platforms.slack.mode: http.');
      return new App({ token: botToken, appToken, socketMode: true, clientOptions, logger, deferInitialization: true });
    }
    if (!signingSecret) throw new SlackAdapterError('Slack HTTP mode needs SLACK_SIGNING_SECRET; set it, or use platforms.slack.mode: socket.');
    return new App({ token: botToken, signingSecret, clientOptions, logger, port: this.options.port, deferInitialization: true });
  }

  private listen(app: App, handler: MessageHandler<SlackReplyTarget>): void {
    const onEvent = async (event: SlackMessageEvent, body: { event_id?: string; team_id?: string }): Promise<void> => {
      // Slack redelivers (X-Slack-Retry-Num, retry_attempt) with the same event_id; a mention also
      // arrives twice, as app_mention and as message, with the same channel and ts.
      if (body.event_id && !this.seen.add(`event:${body.event_id}`)) return;
      const me = this.me;
      if (!me) return;
      const reading = readSlackEvent(event, body.team_id, me);
      if (reading.kind === 'ignore') return;
      const { message, mentioned, inThread } = reading;
      if (this.seen.has(`ts:${event.channel}:${event.ts}`)) return;
      const isDm = message.chat.type === 'dm';
      const threadId = `${event.channel}:${message.replyTo.threadTs ?? ''}`;
      // In channels the facts go to the gateway's group policy (a mention, a reply in the bot's thread; wake words there).
      const repliedToBot = !isDm && !mentioned && inThread && (await this.botInThread(event.channel, event.thread_ts ?? ''));
      if (!this.seen.add(`ts:${event.channel}:${event.ts}`)) return;
      // Its twin (app_mention or message) or a redelivery may have reached another instance.
      if (this.options.claims && !(await this.options.claims.claim('slack', `${me.teamId}:${event.channel}:${event.ts}`))) return;
      if (!isDm && (mentioned || repliedToBot)) {
        this.threads.set(threadId, true);
        this.remember(event.channel, message.user.id, message.replyTo);
      }
      const facts = isDm ? message : { ...message, group: { mentioned, repliedToBot } };
      const files = event.files?.length ? slackAttachments(event.files, app.client, this.options.botToken) : [];
      await handler(files.length > 0 ? { ...facts, attachments: files } : facts);
    };
    const guard = (kind: string) => async (args: { event: unknown; body: unknown }) => {
      try {
        await onEvent(args.event as SlackMessageEvent, args.body as { event_id?: string; team_id?: string });
      } catch (error) {
        this.logger.error({ err: errorMessage(error), kind }, 'slack event failed');
      }
    };
    // `/hermes new`, `/hermes stop`…: Slack keeps `/` words for slash commands, and has none in threads.
    app.command('/hermes', async ({ command, ack, respond }) => {
      await ack();
      try {
        const me = this.me;
        if (!me) return;
        const payload = slackSlashCommandSchema.safeParse(command);
        if (!payload.success) return void this.logger.error({ problem: payload.error.message }, 'malformed Slack /hermes payload ignored');
        const reading = readHermesCommand(payload.data, me.teamId, (channel, user) => this.lastThread.get(`${channel}:${user}`));
        if (reading.kind === 'reply') return void (await respond({ response_type: 'ephemeral', text: reading.text }));
        await handler(reading.message);
      } catch (error) {
        this.logger.error({ err: errorMessage(error) }, 'slack /hermes command failed');
      }
    });
    app.event('app_mention', guard('app_mention'));
    app.event('message', guard('message'));
    app.action(SLACK_APPROVAL_ACTION, async ({ ack, body }) => {
      // Slack shows an error to the presser unless the press is acknowledged within 3 s.
      await ack();
      try {
        const reading = readApprovalPress(body, this.me?.teamId ?? '');
        if (reading.kind === 'malformed') return void this.logger.error({ problem: reading.problem }, `malformed Slack approval button press ignored (${reading.problem})`);
        if (reading.kind === 'not_ours') return void this.logger.warn('approval button press without channel, message or a value of ours ignored');
        // The gateway authorizes it like any message from the presser, and checks the request it names.
        await handler(reading.message);
      } catch (error) {
        this.logger.error({ err: errorMessage(error) }, 'slack button press failed');
      }
    });
    app.error(async (error) => {
      this.logger.error({ err: errorMessage(error) }, 'slack app error');
    });
  }

  private remember(channel: string, user: string, target: SlackReplyTarget): void {
    if (this.lastThread.size > 10_000) this.lastThread.clear();
    this.lastThread.set(`${channel}:${user}`, target);
  }

  /** Whether the bot has written in a thread: remembered, else asked once with conversations.replies. */
  private async botInThread(channel: string, threadTs: string): Promise<boolean> {
    const key = `${channel}:${threadTs}`;
    const known = this.threads.get(key);
    if (known !== undefined) return known;
    let found = false;
    try {
      const replies = await this.client().conversations.replies({ channel, ts: threadTs, limit: 200 });
      const me = this.me;
      found = (replies.messages ?? []).some((m) => m.user === me?.botUserId || (me?.botId && m.bot_id === me.botId));
    } catch (error) {
      this.logger.debug({ err: errorMessage(error), channel }, 'conversations.replies failed');
    }
    if (this.threads.size > 10_000) this.threads.clear();
    this.threads.set(key, found);
    return found;
  }
}
