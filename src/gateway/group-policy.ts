import type { InboundMessage } from './types.js';
import type { PeopleSettings } from './people-settings.js';

/** More bot-sent messages than this in `BOT_WINDOW_MS` pause a thread. */
export const BOT_MESSAGE_LIMIT = 20;
export const BOT_WINDOW_MS = 5 * 60_000;

/** What becomes of a message in a group chat (and of any message a bot sent). */
export type GroupVerdict =
  | { kind: 'answer'; message: InboundMessage }
  | { kind: 'ignore'; reason: string }
  /** The thread just got too many bot messages: it is paused, and the notice is said once. */
  | { kind: 'pause'; notice: string };

export const BOT_PAUSE_NOTICE =
  `⏸ Paused: this thread got more than ${BOT_MESSAGE_LIMIT} messages from bots in ${BOT_WINDOW_MS / 60_000} minutes, ` +
  'which looks like bots answering each other. Bot messages here are ignored until a person writes or the minutes pass.';

/**
 * The one group policy of every platform: adapters only report facts (the chat's type, a
 * mention, a reply to the bot, a bot sender) and this decides. In a group: the chat must be in
 * `allowed_chats` when that lists any; with `require_mention` only a mention, a reply to the bot
 * or a wake word is answered; `per_user` gives each person a session of their own in the thread.
 * Bots are ignored unless `allow_bots`, and a thread past the bot-message limit is paused.
 */
export class GroupPolicy {
  /** Per thread, when its recent bot messages came (in process: each instance counts what it sees). */
  private readonly botTimes = new Map<string, number[]>();
  private readonly paused = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  judge(message: InboundMessage, settings: PeopleSettings): GroupVerdict {
    const thread = message.threadKey;
    if (message.user.isBot) {
      if (!settings.allowBots) return { kind: 'ignore', reason: 'a message from a bot' };
      const verdict = this.countBot(thread);
      if (verdict) return verdict;
    } else {
      // A person writing ends a pause.
      this.paused.delete(thread);
      this.botTimes.delete(thread);
    }
    if (message.chat.type === 'dm') return { kind: 'answer', message };
    if (settings.allowedChats.length > 0 && !inAllowedChat(message, settings.allowedChats)) return { kind: 'ignore', reason: 'a chat not in allowed_chats' };
    if (settings.requireMention && !addressed(message, settings)) return { kind: 'ignore', reason: 'a group message that does not address the bot' };
    return { kind: 'answer', message: settings.groupSessions === 'per_user' ? perUser(message) : message };
  }

  private countBot(thread: string): GroupVerdict | undefined {
    const now = this.now();
    const pausedAt = this.paused.get(thread);
    if (pausedAt !== undefined && now - pausedAt < BOT_WINDOW_MS) return { kind: 'ignore', reason: 'a bot message in a paused thread' };
    this.paused.delete(thread);
    const times = (this.botTimes.get(thread) ?? []).filter((at) => now - at < BOT_WINDOW_MS);
    times.push(now);
    this.botTimes.set(thread, times);
    if (times.length <= BOT_MESSAGE_LIMIT) return undefined;
    this.paused.set(thread, now);
    this.botTimes.delete(thread);
    return { kind: 'pause', notice: BOT_PAUSE_NOTICE };
  }
}

/**
 * A mention, a reply to the bot, or a wake word. A group message whose adapter reports no facts
 * was already filtered by it (it passes only what addresses the bot).
 */
function addressed(message: InboundMessage, settings: PeopleSettings): boolean {
  if (!message.group) return true;
  if (message.group.mentioned || message.group.repliedToBot) return true;
  return settings.wakeWords.some((word) => word.test(message.text));
}

/** The chat, or the channel its thread is in, is one `allowed_chats` names. */
export function inAllowedChat(message: InboundMessage, allowedChats: readonly string[]): boolean {
  const parent = message.group?.parentId;
  return allowedChats.includes(message.chat.id) || (parent !== undefined && allowedChats.includes(parent));
}

/** The thread key of one person in a group thread: the same reply target, a session of their own. */
const USER_PART = '#user:';

function perUser(message: InboundMessage): InboundMessage {
  const suffix = `${USER_PART}${message.user.id}`;
  if (message.threadKey.endsWith(suffix)) return message;
  const threadKey = `${message.threadKey}${suffix}`;
  return { ...message, threadKey, replyTo: { ...message.replyTo, threadKey } };
}
