import { z } from 'zod';
import { threadRef, type ThreadRef } from '../../src/gateway/index.js';
import type { SlackReplyTarget } from './inbound.js';

const text = z.string().min(1);

/** `slack:<team>:<channel>[:<thread_ts>]`, the channel and the message it answers. */
const SLACK_TARGET = z.object({
  threadKey: z.string().startsWith('slack:'),
  channel: text,
  messageTs: text,
  threadTs: text.optional(),
  userId: text.optional(),
  teamId: text.optional(),
});

/** A Slack thread as the outbox keeps it and another instance passes it. */
export const SLACK_THREAD: ThreadRef<SlackReplyTarget> = threadRef<SlackReplyTarget>(SLACK_TARGET);
