import type { types } from '@slack/bolt';
import type { InboundMessage } from '../../src/gateway/types.js';
import type { SlackReplyTarget } from './inbound.js';

/** `action_id`s of the approval buttons, and the command each press stands for. */
export const SLACK_APPROVAL_ACTIONS = {
  hermes_approve: '/approve',
  hermes_approve_session: '/approve session',
  hermes_approve_always: '/approve always',
  hermes_deny: '/deny',
} as const;

/** One of the approval buttons' `action_id`s. */
export type SlackApprovalActionId = keyof typeof SLACK_APPROVAL_ACTIONS;

// A section block's text holds at most 3,000 characters.
const SECTION_LIMIT = 3000;

const button = (actionId: SlackApprovalActionId, label: string, style?: 'primary' | 'danger'): types.Button => ({
  type: 'button',
  action_id: actionId,
  text: { type: 'plain_text', text: label },
  value: SLACK_APPROVAL_ACTIONS[actionId],
  ...(style ? { style } : {}),
});

/** The blocks of an approval request: the (already mrkdwn) text, then Approve once, This session, Always and Deny. */
export function approvalBlocks(mrkdwn: string): types.KnownBlock[] {
  const text = mrkdwn.length > SECTION_LIMIT ? `${mrkdwn.slice(0, SECTION_LIMIT - 1)}…` : mrkdwn;
  return [
    { type: 'section', text: { type: 'mrkdwn', text } },
    {
      type: 'actions',
      block_id: 'hermes_approval',
      elements: [
        button('hermes_approve', 'Approve once', 'primary'),
        button('hermes_approve_session', 'This session'),
        button('hermes_approve_always', 'Always'),
        button('hermes_deny', 'Deny', 'danger'),
      ],
    },
  ];
}

/** The fields of a `block_actions` payload a press is read from. */
export interface SlackButtonPress {
  team?: { id: string } | null;
  user: { id: string; name?: string; username?: string; team_id?: string };
  channel?: { id: string };
  message?: { ts: string; thread_ts?: string };
  container?: Record<string, unknown>;
}

/**
 * The message a press of an approval button stands for (`/approve`, `/approve session`,
 * `/approve always` or `/deny`) from the presser,
 * in the thread the buttons were posted in (the same threadKey the conversation has), or
 * undefined when the payload lacks the channel or message (not a message button).
 */
export function readApprovalPress(actionId: SlackApprovalActionId, body: SlackButtonPress, fallbackTeam: string): InboundMessage<SlackReplyTarget> | undefined {
  const channel = body.channel?.id ?? stringField(body.container, 'channel_id');
  const messageTs = body.message?.ts ?? stringField(body.container, 'message_ts');
  if (!channel || !messageTs) return undefined;
  const team = body.team?.id ?? body.user.team_id ?? fallbackTeam;
  const isDm = channel.startsWith('D');
  // The buttons are posted into the conversation's thread; a DM's main timeline has none.
  const threadTs = body.message?.thread_ts ?? stringField(body.container, 'thread_ts') ?? (isDm ? undefined : messageTs);
  const threadKey = threadTs ? `slack:${team}:${channel}:${threadTs}` : `slack:${team}:${channel}`;
  const replyTo: SlackReplyTarget = { threadKey, channel, messageTs };
  if (threadTs) replyTo.threadTs = threadTs;
  return {
    platform: 'slack',
    threadKey,
    chat: { id: channel, type: isDm ? 'dm' : 'thread' },
    user: { id: body.user.id, ...(body.user.username ? { name: body.user.username } : {}) },
    text: SLACK_APPROVAL_ACTIONS[actionId],
    messageId: messageTs,
    replyTo,
  };
}

function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' && value ? value : undefined;
}
