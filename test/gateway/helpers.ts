import type { AgentEvent, AgentRunner, RunTurnOptions, SessionInfo, TurnResult } from '../../src/agent/types.js';
import { defaultConfig, deepMerge, validateConfig, type ConfigOverrides, type HermesConfig } from '../../src/config/index.js';
import {
  KEY_ONLY_THREAD_REF,
  type ApprovalCapability,
  type InboundMessage,
  type MessageHandler,
  type PlatformAdapter,
  type PresenceCapability,
  type ReplyTarget,
  type StreamingCapability,
  type TurnNotice,
} from '../../src/gateway/index.js';

/** A config with overrides laid over the defaults. */
export function testConfig(overrides: ConfigOverrides = {}): HermesConfig {
  return validateConfig(deepMerge(defaultConfig(), overrides), 'test').config;
}

export interface Sent {
  threadKey: string;
  text: string;
  messageId: string;
}

/** An in-process adapter that records what the gateway sends (the core's unit tests). */
export class RecordingAdapter implements PlatformAdapter {
  readonly thread = KEY_ONLY_THREAD_REF;
  readonly sent: Sent[] = [];
  readonly edits: Array<{ messageId: string; text: string }> = [];
  readonly typings: string[] = [];
  readonly events: Array<AgentEvent | TurnNotice> = [];
  handler: MessageHandler | undefined;
  stopped = false;
  /** Set by a test to act as a platform with approval buttons. */
  approvals?: ApprovalCapability;
  readonly streaming: StreamingCapability;
  readonly presence: PresenceCapability;
  private next = 1;

  constructor(
    readonly name = 'test',
    readonly maxMessageLength = 4096,
    minEditIntervalMs = 0,
    typingIntervalMs = 4000,
  ) {
    this.streaming = { minEditIntervalMs };
    this.presence = { typingIntervalMs, typing: async (replyTo) => void this.typings.push(replyTo.threadKey) };
  }

  async start(handler: MessageHandler): Promise<void> {
    this.handler = handler;
  }
  async stop(): Promise<void> {
    this.stopped = true;
  }
  async send(replyTo: ReplyTarget, text: string): Promise<{ messageId: string }> {
    const messageId = String(this.next++);
    this.sent.push({ threadKey: replyTo.threadKey, text, messageId });
    return { messageId };
  }
  async edit(_replyTo: ReplyTarget, messageId: string, text: string): Promise<void> {
    this.edits.push({ messageId, text });
  }
  onAgentEvent(_replyTo: ReplyTarget, event: AgentEvent | TurnNotice): void {
    this.events.push(event);
  }
  textsTo(threadKey: string): string[] {
    return this.sent.filter((sent) => sent.threadKey === threadKey).map((sent) => sent.text);
  }
  /** Each message sent to the thread as it reads now: its last edit, or the text sent (a streamed reply is edited in place). */
  shownTo(threadKey: string): string[] {
    return this.sent
      .filter((sent) => sent.threadKey === threadKey)
      .map((sent) => this.edits.filter((edit) => edit.messageId === sent.messageId).pop()?.text ?? sent.text);
  }
}

let counter = 0;
/** An inbound message as an adapter would build it. */
export function message(text: string, options: { thread?: string; user?: string; platform?: string } = {}): InboundMessage {
  const platform = options.platform ?? 'test';
  const threadKey = `${platform}:${options.thread ?? 'a'}`;
  return {
    platform,
    threadKey,
    chat: { id: options.thread ?? 'a', type: 'dm' },
    user: { id: options.user ?? 'u1', name: 'User' },
    text,
    messageId: String(++counter),
    replyTo: { threadKey },
  };
}

export interface TurnRecord {
  options: RunTurnOptions;
  /** Why the turn's signal aborted, once it did. */
  abortReason?: string;
  finished: boolean;
}

type Behaviour = (options: RunTurnOptions, record: TurnRecord) => Promise<TurnResult>;

/** Waits until the signal aborts, then reports the turn as interrupted. */
export const untilAborted: Behaviour = (options) =>
  new Promise((resolve) => {
    const done = () => resolve({ text: `interrupted: ${String(options.signal?.reason)}`, status: 'interrupted' });
    if (options.signal?.aborted) return done();
    options.signal?.addEventListener('abort', done, { once: true });
  });

/** Answers at once with `answer: <text>`. */
export const answerAtOnce: Behaviour = async (options) => ({ text: `answer: ${options.text}`, status: 'completed' });

/** An AgentRunner whose turns do what the test says; it records concurrency and order. */
export class FakeAgent implements AgentRunner {
  readonly turns: TurnRecord[] = [];
  readonly log: string[] = [];
  readonly newSessions: string[] = [];
  maxActive = 0;
  maxActivePerKey = 0;
  closed = false;
  private active = new Map<string, number>();
  private sessions = new Map<string, SessionInfo>();

  constructor(public behaviour: Behaviour = answerAtOnce) {}

  get activeTotal(): number {
    return [...this.active.values()].reduce((sum, n) => sum + n, 0);
  }

  async runTurn(options: RunTurnOptions): Promise<TurnResult> {
    const record: TurnRecord = { options, finished: false };
    this.turns.push(record);
    const key = options.sessionKey;
    this.active.set(key, (this.active.get(key) ?? 0) + 1);
    this.maxActivePerKey = Math.max(this.maxActivePerKey, this.active.get(key)!);
    this.maxActive = Math.max(this.maxActive, this.activeTotal);
    this.log.push(`start ${key} ${options.text}`);
    options.signal?.addEventListener('abort', () => (record.abortReason = String(options.signal?.reason)), { once: true });
    if (!this.sessions.has(key)) this.sessions.set(key, { sessionId: `s-${key}`, createdAt: Date.now() - 120_000, messageCount: 0, kernel: 'none' });
    try {
      return await this.behaviour(options, record);
    } finally {
      this.active.set(key, this.active.get(key)! - 1);
      record.finished = true;
      this.log.push(`end ${key} ${options.text}`);
    }
  }
  async newSession(sessionKey: string): Promise<void> {
    this.log.push(`new ${sessionKey}`);
    this.newSessions.push(sessionKey);
    this.sessions.delete(sessionKey);
  }
  sessionInfo(sessionKey: string): SessionInfo | undefined {
    return this.sessions.get(sessionKey);
  }
  describe(): { model: string; backend: string } {
    return { model: 'fake-model', backend: 'local' };
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Polls `check` until it is true (a test fails by its own timeout, never by a timer here). */
export async function until(check: () => boolean, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 20_000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
