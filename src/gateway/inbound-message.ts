import { z } from 'zod';
import type { InboundMessage } from './types.js';
import { approvalPressSchema } from './approval-buttons.js';

/**
 * A chat message as plain data (another instance passed it through Redis): the fields the
 * gateway reads, each of its type. The reply target is checked only for its thread key here;
 * its platform's `ThreadRef` reads the rest where the message is dispatched. Files travel
 * apart, as descriptions that `passed-attachments` reads.
 */
const passedInbound = z.object({
  platform: z.string().min(1),
  threadKey: z.string().min(1),
  chat: z.object({ id: z.string(), type: z.enum(['dm', 'group', 'channel', 'thread']) }),
  user: z.object({ id: z.string(), name: z.string().optional() }),
  text: z.string(),
  messageId: z.string(),
  replyTo: z.looseObject({ threadKey: z.string() }),
  attachments: z.unknown().optional(),
  approval: approvalPressSchema.optional(),
});

export type PassedInbound = { message: InboundMessage; attachments: unknown } | { problem: string };

/** Reads a passed message: the message and its (untrusted) file descriptions, or what is wrong with it. */
export function readPassedInbound(payload: unknown): PassedInbound {
  const parsed = passedInbound.safeParse(payload);
  if (!parsed.success) return { problem: z.prettifyError(parsed.error).replace(/\n/g, '; ').slice(0, 300) };
  const { attachments, ...message } = parsed.data;
  return { message, attachments };
}
