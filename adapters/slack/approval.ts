import type { types } from '@slack/bolt';
import { z } from 'zod';
import type { InboundMessage } from '../../src/gateway/types.js';
import type { SlackReplyTarget } from './inbound.js';
import { APPROVAL_BUTTONS, approvalButtonData, readApprovalButtonData, type ApprovalButton } from '../../src/gateway/approval-buttons.js';

/** The `action_id` of one approval button (unique in its block); its `value` carries the request and the choice. */
export const SLACK_APPROVAL_ACTION = /^hermes_approval_(once|session|always|deny)$/;

// A section block's text holds at most 3,000 characters.
const SECTION_LIMIT = 3000;

const STYLE: Record<ApprovalButton['tone'], 'primary' | 'danger' | undefined> = { approve: 'primary', primary: undefined, neutral: undefined, deny: 'danger' };

const button = (requestId: string, shown: ApprovalButton): types.Button => {
  const style = STYLE[shown.tone];
  return {
    type: 'button',
    action_id: `hermes_approval_${shown.choice}`,
    text: { type: 'plain_text', text: shown.label },
    value: approvalButtonData(requestId, shown.choice),
    ...(style ? { style } : {}),
  };
};

/** The blocks of an approval request: the (already mrkdwn) text, then Approve once, This session, Always and Deny. */
export function approvalBlocks(mrkdwn: string, requestId: string): types.KnownBlock[] {
  const text = mrkdwn.length > SECTION_LIMIT ? `${mrkdwn.slice(0, SECTION_LIMIT - 1)}…` : mrkdwn;
  return [
    { type: 'section', text: { type: 'mrkdwn', text } },
    {
      type: 'actions',
      block_id: 'hermes_approval',
      elements: APPROVAL_BUTTONS.map((shown) => button(requestId, shown)),
    },
  ];
}

/** The fields of a `block_actions` payload a press is read from (Slack sends more; the rest is dropped). */
const slackButtonPressSchema = z.object({
  team: z.object({ id: z.string() }).nullish(),
  user: z.object({ id: z.string().min(1), name: z.string().nullish(), username: z.string().nullish(), team_id: z.string().nullish() }),
  channel: z.object({ id: z.string() }).nullish(),
  message: z.object({ ts: z.string(), thread_ts: z.string().nullish() }).nullish(),
  actions: z.array(z.object({ value: z.string().nullish() })).nullish(),
  container: z.record(z.string(), z.unknown()).nullish(),
});

/**
 * What a button press's payload is: the press of one of our approval buttons as a message from
 * the presser; not one of ours (no channel, no message, or a value that is not our data); or
 * malformed (the payload has not the shape of a `block_actions` press), with what is wrong.
 */
export type SlackPressReading =
  | { kind: 'press'; message: InboundMessage<SlackReplyTarget> }
  | { kind: 'not_ours' }
  | { kind: 'malformed'; problem: string };

/**
 * Reads a press of an approval button, validated: a message from the presser with empty text
 * and the typed answer its value carries, in the thread the buttons were posted in (the same
 * threadKey the conversation has).
 */
export function readApprovalPress(payload: unknown, fallbackTeam: string): SlackPressReading {
  const parsed = slackButtonPressSchema.safeParse(payload);
  if (!parsed.success) {
    const problem = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'payload'}: ${issue.message}`).join('; ');
    return { kind: 'malformed', problem };
  }
  const body = parsed.data;
  const press = readApprovalButtonData(body.actions?.[0]?.value);
  if (!press) return { kind: 'not_ours' };
  const channel = body.channel?.id ?? stringField(body.container ?? undefined, 'channel_id');
  const messageTs = body.message?.ts ?? stringField(body.container ?? undefined, 'message_ts');
  if (!channel || !messageTs) return { kind: 'not_ours' };
  const team = body.team?.id ?? body.user.team_id ?? fallbackTeam;
  const isDm = channel.startsWith('D');
  // The buttons are posted into the conversation's thread; a DM's main timeline has none.
  const threadTs = body.message?.thread_ts ?? stringField(body.container ?? undefined, 'thread_ts') ?? (isDm ? undefined : messageTs);
  const threadKey = threadTs ? `slack:${team}:${channel}:${threadTs}` : `slack:${team}:${channel}`;
  const replyTo: SlackReplyTarget = { threadKey, channel, messageTs };
  if (threadTs) replyTo.threadTs = threadTs;
  const message: InboundMessage<SlackReplyTarget> = {
    platform: 'slack',
    threadKey,
    chat: { id: channel, type: isDm ? 'dm' : 'thread' },
    user: { id: body.user.id, ...(body.user.username ? { name: body.user.username } : {}) },
    text: '',
    messageId: messageTs,
    replyTo,
    approval: press,
  };
  return { kind: 'press', message };
}

function stringField(record: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = record?.[key];
  return typeof value === 'string' && value ? value : undefined;
}
