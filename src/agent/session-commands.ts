import type { HermesConfig } from '../config/schema.js';
import type { UsageSummary } from '../sessions/index.js';
import type { CompactOutcome } from './context/compactor.js';
import type { Conversation } from './context/conversation.js';
import { formatTokens } from '../shared/notices.js';
import { contentText, turnStarts } from './context/turns.js';
import type { CompressResult, TokenCount, UndoResult, UsageReport } from './types.js';

type Pricing = NonNullable<HermesConfig['model']['pricing']>;

function cost(pricing: Pricing, prompt: number, completion: number): number {
  return (prompt * pricing.input + completion * pricing.output) / 1_000_000;
}

/** What /usage shows, from the session's usage rows and its view. */
export function usageReport(options: {
  summary: UsageSummary;
  conversation: Conversation;
  limits: { window: number; threshold: number };
  model: string;
  pricing: HermesConfig['model']['pricing'];
  /** The model the pricing is for (`model.name`). */
  pricedModel: string;
}): UsageReport {
  const { summary, pricing, pricedModel } = options;
  const session: TokenCount & { summaries: number } = { promptTokens: 0, completionTokens: 0, calls: 0, estimated: false, summaries: summary.summaries };
  let priced = 0;
  for (const row of summary.byModel) {
    session.promptTokens += row.promptTokens;
    session.completionTokens += row.completionTokens;
    session.calls += row.calls;
    session.estimated ||= row.estimated;
    session.cacheReadTokens = (session.cacheReadTokens ?? 0) + (row.cacheReadTokens ?? 0);
    session.cacheWriteTokens = (session.cacheWriteTokens ?? 0) + (row.cacheWriteTokens ?? 0);
    if (pricing && row.model === pricedModel) priced += cost(pricing, row.promptTokens, row.completionTokens);
  }
  if (pricing) session.cost = priced;
  const last = summary.lastTurn;
  const lastTurn = last
    ? {
        model: last.model,
        promptTokens: last.promptTokens,
        completionTokens: last.completionTokens,
        calls: last.calls,
        estimated: last.estimated,
        cacheReadTokens: last.cacheReadTokens ?? 0,
        cacheWriteTokens: last.cacheWriteTokens ?? 0,
        ...(pricing && last.model === pricedModel ? { cost: cost(pricing, last.promptTokens, last.completionTokens) } : {}),
      }
    : undefined;
  const { conversation } = options;
  return {
    model: options.model,
    ...(lastTurn ? { lastTurn } : {}),
    session,
    context: { tokens: conversation.estimate(conversation.overhead), window: options.limits.window, threshold: options.limits.threshold },
  };
}

/** The note an interrupted turn's successor starts with (interruptedNote), taken off again for /retry. */
const INTERRUPTED_NOTE = /^\[System note: your previous turn was interrupted[\s\S]*?\]\n\n/;

/** Drops the last turn from the view; its text (without a system note) is what /retry sends again. */
export function undoLastTurn(conversation: Conversation): UndoResult | undefined {
  const starts = turnStarts(conversation.messages());
  const start = starts.at(-1);
  if (start === undefined) return undefined;
  const message = conversation.entries()[start].message;
  const text = contentText(message).replace(INTERRUPTED_NOTE, '');
  const removed = conversation.truncate(start).length;
  return { text, removed };
}

/** The /compress reply for a compaction's outcome. */
export function compressReply(outcome: CompactOutcome): CompressResult {
  switch (outcome.kind) {
    case 'compacted':
      return { compacted: true, text: `${outcome.notice[0].toUpperCase()}${outcome.notice.slice(1)} (the model's window is ${formatTokens(outcome.window)}).` };
    case 'unchanged':
      return {
        compacted: false,
        text: `Nothing to compress: ${outcome.reason} (about ${formatTokens(outcome.tokens)} tokens of ${formatTokens(outcome.window)}).`,
      };
    case 'no_room':
      return { compacted: false, text: outcome.message };
  }
}
