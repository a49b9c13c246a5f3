import type { ReplyTarget } from '../../src/gateway/types.js';

/** Where a Discord reply goes: a channel or thread, and for slash commands the interaction to answer. */
export interface DiscordReplyTarget extends ReplyTarget {
  channelId: string;
  /** Set for slash commands: replies edit the deferred answer, then follow up. */
  interactionId?: string;
  /**
   * The slash command's webhook token and when it lapses (ms since the epoch), so the instance a
   * message was passed to (several instances) answers the interaction the first one deferred.
   */
  interactionToken?: string;
  interactionExpiresAt?: number;
  /** The message the turn answers, where its reactions go (`display.reactions`); a thread's first message is in the parent channel. */
  reactTo?: { channelId: string; messageId: string };
}

/** `discord:<guild>:<channel or thread>`, or `discord:dm:<channel>` for direct messages. */
export function discordThreadKey(guildId: string | null, channelId: string): string {
  return `discord:${guildId ?? 'dm'}:${channelId}`;
}

/** The message text without mentions of the bot. */
export function stripBotMention(content: string, botId: string): string {
  return content.replace(new RegExp(`<@!?${botId}>`, 'g'), ' ').replace(/\s+/g, ' ').trim();
}

/** A thread name from the first words of the question (Discord allows 1–100 characters). */
export function threadName(text: string): string {
  const line = text.split('\n')[0].trim();
  if (!line) return 'hermes';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
