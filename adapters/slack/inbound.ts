import type { InboundMessage, ReplyTarget } from '../../src/gateway/types.js';
import type { SlackFile } from './files.js';
import { unescapeSlack } from './mrkdwn.js';

/** The fields of a Slack `message` / `app_mention` event the adapter reads. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  team?: string;
  /** A `file_share` message's files. */
  files?: SlackFile[];
}

/** Who the bot is, from `auth.test`. */
export interface SlackIdentity {
  botUserId: string;
  botId?: string;
  teamId: string;
}

/** Where a Slack reply goes: the channel, the thread (absent for a DM's main timeline) and the asking message. */
export interface SlackReplyTarget extends ReplyTarget {
  channel: string;
  threadTs?: string;
  messageTs: string;
  /** Who asked, and their workspace: a chat stream outside a DM names its recipient. */
  userId?: string;
  teamId?: string;
}

// Subtypes that are still someone writing (a person, or another bot: the gateway's group policy
// decides about bots); every other subtype (edits, deletions, joins) is ignored.
const WRITING_SUBTYPES = new Set(['thread_broadcast', 'file_share', 'bot_message']);

/** What an event means to the bot before thread membership is known. */
export type SlackEventReading =
  | { kind: 'ignore'; reason: string }
  | { kind: 'message'; message: InboundMessage<SlackReplyTarget>; mentioned: boolean; inThread: boolean };

/**
 * Reads one event. A DM's main timeline is one session (`slack:<team>:<channel>`); anything
 * else is a session per thread (`slack:<team>:<channel>:<thread_ts or ts>`), answered in that thread.
 */
export function readSlackEvent(event: SlackMessageEvent, teamId: string | undefined, me: SlackIdentity): SlackEventReading {
  if (event.subtype && !WRITING_SUBTYPES.has(event.subtype)) return { kind: 'ignore', reason: `subtype ${event.subtype}` };
  if (event.user === me.botUserId || (event.bot_id !== undefined && event.bot_id === me.botId)) return { kind: 'ignore', reason: 'own message' };
  // Another bot: a bot user's message has both ids, an integration's (bot_message) only bot_id.
  const author = event.user ?? event.bot_id;
  if (!author) return { kind: 'ignore', reason: 'no author' };
  const isBot = event.bot_id !== undefined || event.subtype === 'bot_message';
  const team = teamId ?? event.team ?? me.teamId;
  const raw = event.text ?? '';
  const mentionTag = `<@${me.botUserId}>`;
  const mentioned = event.type === 'app_mention' || raw.includes(mentionTag);
  const text = unescapeSlack(raw.split(mentionTag).join(' ')).replace(/\s+/g, ' ').trim();
  const isDm = event.channel_type === 'im' || event.channel.startsWith('D');
  const inThread = event.thread_ts !== undefined && event.thread_ts !== event.ts;
  const threadTs = isDm && !inThread ? undefined : (event.thread_ts ?? event.ts);
  const threadKey = threadTs ? `slack:${team}:${event.channel}:${threadTs}` : `slack:${team}:${event.channel}`;
  const replyTo: SlackReplyTarget = { threadKey, channel: event.channel, messageTs: event.ts, userId: author, teamId: team };
  if (threadTs) replyTo.threadTs = threadTs;
  return {
    kind: 'message',
    mentioned,
    inThread,
    message: {
      platform: 'slack',
      threadKey,
      chat: { id: event.channel, type: isDm ? 'dm' : 'thread' },
      user: { id: author, ...(isBot ? { isBot: true } : {}) },
      text,
      messageId: event.ts,
      replyTo,
    },
  };
}
