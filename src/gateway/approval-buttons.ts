import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ApprovalAnswer } from '../approvals/index.js';

/** What a press of an approval button answers. */
export const APPROVAL_CHOICES = ['once', 'session', 'always', 'deny'] as const;
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number];

/** One approval button: what it answers, its label, and how it stands out (each platform renders the tone its way). */
export interface ApprovalButton {
  readonly choice: ApprovalChoice;
  readonly label: string;
  readonly tone: 'approve' | 'primary' | 'neutral' | 'deny';
}

/** The buttons under every approval request, in order; every adapter renders this one table. */
export const APPROVAL_BUTTONS: readonly ApprovalButton[] = [
  { choice: 'once', label: 'Approve once', tone: 'approve' },
  { choice: 'session', label: 'This session', tone: 'primary' },
  { choice: 'always', label: 'Always', tone: 'neutral' },
  { choice: 'deny', label: 'Deny', tone: 'deny' },
];

/**
 * A press of an approval button as the adapter read it from the platform: which request, and
 * what it answers. Who pressed is the message's user; the gateway checks both.
 */
export interface ApprovalPress {
  requestId: string;
  choice: ApprovalChoice;
}

const REQUEST_ID = /^[0-9a-f]{16}$/;

/** A press as plain data (passed through Redis with its message). */
export const approvalPressSchema = z.object({ requestId: z.string().regex(REQUEST_ID), choice: z.enum(APPROVAL_CHOICES) });

/** A fresh id for one approval request: 16 hex digits, so a button's data fits the smallest platform limit (64 bytes). */
export function newApprovalRequestId(): string {
  return randomBytes(8).toString('hex');
}

const PREFIX = 'hermes:approval:';

/** The data a button carries (however its platform names a button's payload): the request and the choice. */
export function approvalButtonData(requestId: string, choice: ApprovalChoice): string {
  return `${PREFIX}${requestId}:${choice}`;
}

/** What a button's data asks for, or undefined for data that is not one of ours (other bots', an old button's). */
export function readApprovalButtonData(data: unknown): ApprovalPress | undefined {
  if (typeof data !== 'string' || !data.startsWith(PREFIX)) return undefined;
  const parts = data.slice(PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [requestId, choice] = parts;
  const parsed = approvalPressSchema.safeParse({ requestId, choice });
  return parsed.success ? parsed.data : undefined;
}

/** The answer a choice gives. */
export function answerOfChoice(choice: ApprovalChoice): ApprovalAnswer {
  return choice === 'deny' ? { approved: false } : { approved: true, scope: choice };
}
