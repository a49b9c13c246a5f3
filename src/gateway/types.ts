import type { Readable } from 'node:stream';
import type { AgentEvent } from '../agent/types.js';
import type { Audience } from '../environments/index.js';
import type { ReplyTarget, ThreadRef } from './thread-ref.js';
import type { ApprovalPress } from './approval-buttons.js';

export type { ReplyTarget, ThreadRef } from './thread-ref.js';

export type ChatType = 'dm' | 'group' | 'channel' | 'thread';

/** A platform event, as an adapter hands it to `gateway.dispatch()`; `Target` is the adapter's own reply target. */
export interface InboundMessage<Target extends ReplyTarget = ReplyTarget> {
  platform: string;
  /**
   * Opaque, built by the adapter; one session per key: `<platform>:<the platform's own parts>`
   * (each platform's reply target says which).
   */
  threadKey: string;
  chat: { id: string; type: ChatType };
  /** `isBot`: the platform says a bot sent it (the gateway ignores it unless `allow_bots`). */
  user: { id: string; name?: string; isBot?: boolean };
  text: string;
  messageId: string;
  /**
   * Facts of a message in a group chat, as the platform reports them (src/gateway/group-policy.ts
   * decides): it mentions the bot, or replies to one of its messages; `parentId`, the channel a
   * thread is in (Discord), which `allowed_chats` may name instead of the thread. Absent: the
   * adapter passed only what addresses the bot.
   */
  group?: { mentioned: boolean; repliedToBot: boolean; parentId?: string };
  /** Where replies go; opaque to the gateway, meaningful to the adapter's `send`. */
  replyTo: Target;
  /** A press of an approval button (its `text` is empty): the typed answer the gateway checks and gives. */
  approval?: ApprovalPress;
  /** Files that came with the message; a message with files and no text still starts a turn. */
  attachments?: InboundAttachment[];
}

/** A file someone sent; nothing is fetched until the gateway opens it. */
export interface InboundAttachment {
  /** The name the sender gave; untrusted (the gateway makes a safe one from it). */
  name?: string;
  /** The MIME type the platform gave, when it did. */
  mimeType?: string;
  /** The size the platform announced, when it did: checked against the limit before anything moves. */
  size?: number;
  /** What the platform says it is; names a file that came without a name (a photo, a voice note). */
  kind?: 'photo' | 'document' | 'audio' | 'voice' | 'video' | 'file';
  /** A stream of the file's bytes from the platform. */
  open(signal: AbortSignal): Promise<Readable>;
  /**
   * Plain data another instance can reopen the file from (its adapter's `files.reopen`)
   * when the message is passed to the instance that holds the thread; without it the file
   * stays behind.
   */
  ref?: AttachmentRef;
}

/**
 * Where a file can be fetched again, as plain data its platform's adapter made (a file id, an
 * upload's name); only that adapter reads the rest, through `files.reopen`.
 */
export type AttachmentRef = { readonly platform: string } & Readonly<Record<string, string | number>>;

/** What is known of a file besides its bytes. */
export type AttachmentDescription = Omit<InboundAttachment, 'open' | 'ref'>;

/** An attachment as plain data, as it travels to another instance; its `ref` is untrusted there. */
export type PassedAttachment = AttachmentDescription & { ref?: unknown };

/** A file on its way to a chat, as `files.send` gets it. */
export interface OutboundFile {
  /** A plain file name (no folders), as the chat shows it. */
  name: string;
  mimeType: string;
  /** Bytes, when known before sending. */
  size?: number;
  caption?: string;
  /** A fresh stream of the bytes; called again when a platform refuses one way and the adapter tries another. */
  open(): Promise<Readable>;
}

/** Called by an adapter for every inbound message; resolves once the gateway has taken it. */
export type MessageHandler<Target extends ReplyTarget = ReplyTarget> = (message: InboundMessage<Target>) => Promise<void>;

/**
 * One message of a streamed reply as the platform shows it while it is written: a draft, a
 * platform stream, or a message sent once and edited. The gateway calls `update` no faster
 * than `minIntervalMs`, one call at a time, and `finish` once.
 */
export interface StreamedMessage {
  /** Least milliseconds between two updates. */
  readonly minIntervalMs: number;
  /** The platform's id of the message once it has one (a draft has none until `finish`). */
  readonly messageId: string | undefined;
  /** Shows the part so far: Markdown as the model writes it, maybe inside an open code block. */
  update(text: string): Promise<void>;
  /** Puts the part's final text in place (the same message: a draft becomes it); resolves once the platform confirmed it. */
  finish(text: string): Promise<{ messageId: string }>;
  /** Drops a draft that never became a message (an interrupted turn). */
  discard?(): Promise<void>;
}

/** Whether a failed delivery is worth another try, and when (a 429's retry_after). */
export interface DeliveryVerdict {
  retry: boolean;
  afterMs?: number;
}

/** The reaction on the message a turn answers (`display.reactions`): 👀 while working, then ✅ or ❌, or none. */
export type TurnReaction = 'working' | 'done' | 'failed' | 'none';

/** One chat platform. Adapters know their platform; nothing else in the code base does. */
export interface PlatformAdapter<Target extends ReplyTarget = ReplyTarget> {
  readonly name: string;
  /**
   * Who can write here: `owner` (only this machine's user: the local web chat) or `others`
   * (a platform where anyone the allow-list admits can). Others' sessions run on
   * `terminal.platform_backend`. Absent means `others`.
   */
  readonly audience?: Audience;
  /** Longest message the platform accepts, in characters. */
  readonly maxMessageLength: number;
  /** The thread identity: its reply targets as the database keeps them and read back, validated. */
  readonly thread: ThreadRef<Target>;
  /** Connects and starts delivering messages to `handler` until `signal` aborts or `stop()`. */
  start(handler: MessageHandler<Target>, signal: AbortSignal): Promise<void>;
  stop(): Promise<void>;
  send(replyTo: Target, text: string): Promise<{ messageId: string }>;
  /** Replaces a sent message's text, and removes any buttons it had (a settled approval request). */
  edit?(replyTo: Target, messageId: string, text: string): Promise<void>;
  /** Whether an error from `send`, `edit` or a stream is worth another try (default: yes, a few times). */
  deliveryVerdict?(error: unknown): DeliveryVerdict;
  /** Optional richer rendering of agent events (the web chat streams them live). */
  onAgentEvent?(replyTo: Target, event: AgentEvent | TurnNotice): void;
  // The optional rest, one group per concern; a platform without one leaves it out and the gateway does without.
  /** How a reply shows while it is written: the platform's own stream and the pace of edits. */
  readonly streaming?: StreamingCapability<Target>;
  /** Approval requests with buttons and a typed answer; without it the gateway sends text and users type `/approve`. */
  readonly approvals?: ApprovalCapability<Target>;
  /** Files out, and files passed from another instance reopened. */
  readonly files?: FileCapability<Target>;
  /** "typing…" while a turn runs, and the reaction on the message it answers. */
  readonly presence?: PresenceCapability<Target>;
  /** Voice out (`/voice on`): the platform's own voice message; absent where it has none. */
  readonly voice?: VoiceCapability<Target>;
}

/** Streaming: how the platform shows one message of a reply while it is written. */
export interface StreamingCapability<Target extends ReplyTarget = ReplyTarget> {
  /** Least milliseconds between two edits of one message the platform tolerates (the gateway's default when absent). */
  readonly minEditIntervalMs?: number;
  /**
   * The platform's own way to stream one message of a reply (a draft, a platform's chat
   * stream), or undefined where it has none for this target: the gateway then sends once and
   * edits at `minEditIntervalMs`. `resume` is a message an earlier run left unfinished.
   */
  open?(target: Target, resume?: { messageId: string }): StreamedMessage | undefined;
}

/**
 * Approval requests with a typed answer. `ask` sends the request with the buttons of
 * `APPROVAL_BUTTONS` (src/gateway/approval-buttons.ts), each carrying
 * `approvalButtonData(requestId, choice)`. A press comes back through the message handler as a
 * message from the presser, in the same thread, with empty text and the typed `approval`
 * (request id and choice), so it is authorized like any other message and reaches only that
 * request. Once the request ends the gateway settles the message to say how (`settle`, else the
 * adapter's `edit`), which removes the buttons.
 */
export interface ApprovalCapability<Target extends ReplyTarget = ReplyTarget> {
  ask(replyTo: Target, text: string, requestId: string): Promise<{ messageId: string }>;
  /** Replaces the request's text with how it ended and removes its buttons (an adapter without a textual `edit` has this). */
  settle?(replyTo: Target, messageId: string, text: string): Promise<void>;
}

/** Files: sending the platform's own attachment, and reopening one another instance received. */
export interface FileCapability<Target extends ReplyTarget = ReplyTarget> {
  /** Largest file `send` takes, in bytes (the platform's limit); the gateway never hands it more. */
  readonly maxBytes?: number;
  /** Posts a file in the thread as the platform's own attachment (a photo where it shows one), with its caption. */
  send?(replyTo: Target, file: OutboundFile): Promise<{ messageId: string }>;
  /**
   * The file a `ref` this adapter made names, for a message another instance passed here; undefined
   * when the ref is not one this adapter can vouch for (wrong shape, outside its files).
   */
  reopen?(ref: unknown, described: AttachmentDescription): Promise<InboundAttachment | undefined>;
}

/** Signs of life while a turn runs. */
export interface PresenceCapability<Target extends ReplyTarget = ReplyTarget> {
  /** Shows "typing…" once; the gateway repeats it every `typingIntervalMs` while a turn runs. */
  typing?(replyTo: Target): Promise<void>;
  /** How often the gateway repeats `typing` (default 4000 ms). */
  readonly typingIntervalMs?: number;
  /** Puts `reaction` on the message the turn answers, replacing the one before (`display.reactions`). */
  react?(target: Target, reaction: TurnReaction): Promise<void>;
}

/** A spoken answer on its way to a chat: OGG Opus, its length and its waveform (src/voice makes it). */
export interface OutboundVoice {
  /** OGG Opus bytes. */
  ogg: Buffer;
  durationSecs: number;
  /** Base64 of at most 256 amplitude bytes (0–255). */
  waveform: string;
}

/** What a platform can do with voice: send a voice note (voice in needs nothing: a recording is an attachment of kind `voice` or `audio`). */
export interface VoiceCapability<Target extends ReplyTarget = ReplyTarget> {
  sendVoice(replyTo: Target, voice: OutboundVoice): Promise<{ messageId: string }>;
}

/** Gateway-level happenings an adapter may render (the web chat shows them). */
export type TurnNotice =
  | { type: 'turn_started' }
  | { type: 'turn_finished'; status: 'completed' | 'interrupted' | 'error' | 'max_iterations' };
