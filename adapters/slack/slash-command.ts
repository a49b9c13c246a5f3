import { z } from 'zod';
import type { InboundMessage } from '../../src/gateway/types.js';
import type { SlackReplyTarget } from './inbound.js';

/** The fields of a slash command payload the adapter reads (Slack sends more; the rest is dropped). */
export const slackSlashCommandSchema = z.object({
  command: z.string(),
  text: z.string().optional(),
  user_id: z.string().min(1),
  user_name: z.string().optional(),
  channel_id: z.string().min(1),
  team_id: z.string().optional(),
});
export type SlackSlashCommand = z.infer<typeof slackSlashCommandSchema>;

export type HermesCommandReading = { kind: 'message'; message: InboundMessage<SlackReplyTarget> } | { kind: 'reply'; text: string };

const USAGE = 'Use `/hermes new`, `/hermes stop`, `/hermes status`, `/hermes help`, `/hermes retry`, `/hermes approve` or `/hermes deny`. Inside a thread, type `!stop`, `!new`… instead: Slack keeps slash commands out of threads.';

/**
 * `/hermes <command> [args]` as the gateway's `/<command>`: in a DM for the DM's session, in a
 * channel for the thread the user last talked to the bot in there (slash commands cannot be
 * typed in threads). Without a command, or with no such thread, an ephemeral hint instead.
 */
export function readHermesCommand(
  payload: SlackSlashCommand,
  fallbackTeam: string,
  lastThread: (channel: string, user: string) => SlackReplyTarget | undefined,
): HermesCommandReading {
  const [word, ...rest] = (payload.text ?? '').trim().split(/\s+/);
  if (!word) return { kind: 'reply', text: USAGE };
  const text = `/${word.replace(/^[/!]/, '').toLowerCase()}${rest.length > 0 ? ` ${rest.join(' ')}` : ''}`;
  const team = payload.team_id ?? fallbackTeam;
  const isDm = payload.channel_id.startsWith('D');
  let replyTo: SlackReplyTarget | undefined;
  if (isDm) {
    replyTo = { threadKey: `slack:${team}:${payload.channel_id}`, channel: payload.channel_id, messageTs: '', userId: payload.user_id, teamId: team };
  } else {
    replyTo = lastThread(payload.channel_id, payload.user_id);
    if (!replyTo) return { kind: 'reply', text: `There is no conversation with me in this channel yet. Mention me to start one; ${USAGE}` };
  }
  return {
    kind: 'message',
    message: {
      platform: 'slack',
      threadKey: replyTo.threadKey,
      chat: { id: payload.channel_id, type: isDm ? 'dm' : 'thread' },
      user: { id: payload.user_id, ...(payload.user_name ? { name: payload.user_name } : {}) },
      text,
      messageId: `slash:${payload.channel_id}:${Date.now()}`,
      replyTo,
    },
  };
}
