import type { HermesConfig } from '../../config/schema.js';
import type { Logger } from '../../shared/logger.js';
import type { ChatMessage, ContextEntry } from '../../sessions/index.js';
import { ModelAbortedError, ModelError } from '../model-errors.js';
import type { ModelClient, ModelUsage } from '../model-client.js';
import type { Conversation } from './conversation.js';
import type { ContextWindows } from './window.js';
import { PRUNED_KERNEL_OUTPUT, PRUNED_OUTPUT, compactionNotice, noRoomMessage } from '../../shared/notices.js';
import { summarise, summaryMessages } from './summary.js';
import { isSummary, toolNamesById, turnStarts } from './turns.js';
import { messageTokens } from './tokens.js';
import { errorMessage } from '../../shared/errors.js';

/** Tool outputs shorter than this are left alone: pruning them saves nothing. */
const PRUNE_MIN_TOKENS = 60;
/** Of the window, what one summary may take at most. */
const SUMMARY_SHARE = 0.1;
const SUMMARY_MAX_TOKENS = 2000;
/** Of the window, what the summariser's own request may take. */
const SUMMARY_INPUT_SHARE = 0.7;
/** A request this close to the window is refused by some servers for the reply's room: aim below. */
const FITS_SHARE = 0.95;

/**
 * When compaction runs: `auto` only past `compression.threshold`; `retry` after the API said
 * the request was too large; `manual` for /compress (older turns are summarised whatever the size).
 */
export type CompactMode = 'auto' | 'retry' | 'manual';

export interface CompactRequest {
  conversation: Conversation;
  /** Whose kernel holds the data of old execute_code outputs (the session, or a subagent's owner). */
  owner: string;
  model: string;
  /** Tokens every request adds to the view: the system prompt and the tool schemas. */
  overhead: number;
  signal: AbortSignal;
  mode: CompactMode;
  /** Hears what a summary call spent (usage from the API, or counted here). */
  onSummaryUsage?: (usage: ModelUsage, estimated: boolean) => void;
}

export type CompactOutcome =
  | { kind: 'unchanged'; tokens: number; window: number; reason: string }
  | { kind: 'compacted'; turns: number; pruned: number; before: number; after: number; window: number; notice: string }
  | { kind: 'no_room'; tokens: number; window: number; message: string };

export interface CompactorOptions {
  settings: HermesConfig['compression'];
  windows: ContextWindows;
  client: ModelClient;
  logger: Logger;
  /** Whether the kernel of `owner` is alive (its variables still hold what old outputs showed). */
  kernelAlive: (owner: string) => boolean;
}

/**
 * Keeps a conversation within its model's window: old tool outputs are pruned first, oldest
 * first (an execute_code output says its data is still in the kernel), then older turns are
 * summarised by one model call, keeping `compression.keep_last_turns` turns verbatim (fewer
 * when those alone do not fit). It never loops: one pass, and `no_room` when it cannot fit.
 */
export class Compactor {
  constructor(private readonly options: CompactorOptions) {}

  /** Tokens at which a request is compacted first, and the window, for `model`. */
  async limits(model: string): Promise<{ window: number; threshold: number; target: number }> {
    const { tokens } = await this.options.windows.get(model);
    const { threshold, target } = this.options.settings;
    return { window: tokens, threshold: Math.floor(tokens * threshold), target: Math.floor(tokens * target) };
  }

  async compact(request: CompactRequest): Promise<CompactOutcome> {
    const { conversation, overhead, mode } = request;
    const { window, threshold, target } = await this.limits(request.model);
    const before = conversation.estimate(overhead);
    if (mode === 'auto' && (before <= threshold || !this.options.settings.enabled)) {
      return { kind: 'unchanged', tokens: before, window, reason: 'the conversation is within the threshold' };
    }
    const ratio = conversation.ratio;
    const size = (entries: readonly ContextEntry[]) => Math.ceil((entries.reduce((sum, entry) => sum + entry.tokens, 0) + overhead) * ratio);
    let entries: ContextEntry[] = conversation.entries().map(({ message, tokens }) => ({ message, tokens }));
    const keep = this.options.settings.keep_last_turns;
    const alive = this.options.kernelAlive(request.owner);
    let pruned = 0;
    let turns = 0;
    let summaryError: string | undefined;

    // 1. Old tool outputs, oldest first: those outside the turns kept verbatim first…
    const prune = (from: number, until: number, goal: number) => {
      const names = toolNamesById(entries.map((entry) => entry.message));
      for (let i = from; i < until && (mode === 'manual' || size(entries) > goal); i++) {
        const message = entries[i].message;
        if (message.role !== 'tool' || entries[i].tokens < PRUNE_MIN_TOKENS) continue;
        const replacement: ChatMessage = {
          role: 'tool',
          tool_call_id: message.tool_call_id,
          content: names.get(message.tool_call_id) === 'execute_code' && alive ? PRUNED_KERNEL_OUTPUT : PRUNED_OUTPUT,
        };
        entries[i] = { message: replacement, tokens: messageTokens(replacement) };
        pruned++;
      }
    };
    const protectFrom = (turnsKept: number) => {
      const starts = turnStarts(entries.map((entry) => entry.message));
      return starts.length > turnsKept ? starts[starts.length - turnsKept] : starts.length > 0 ? starts[0] : entries.length;
    };
    prune(0, protectFrom(keep), target);
    // …then those of the kept turns, oldest first, never the latest turn's own.
    if (mode !== 'manual') prune(protectFrom(keep), protectFrom(1), target);

    // 2. Older turns summarised, keeping as many recent turns verbatim as fit. Pruning alone is
    // enough while it leaves room for a few more turns (halfway between target and threshold).
    const enough = target + Math.floor((threshold - target) / 2);
    if (size(entries) > enough || mode === 'manual') {
      const summaryTokens = Math.min(SUMMARY_MAX_TOKENS, Math.floor(window * SUMMARY_SHARE));
      let cut = protectFrom(keep);
      for (let kept = keep; kept > 1 && size(entries.slice(cut)) + summaryTokens > target; kept--) cut = protectFrom(kept - 1);
      const region = entries.slice(0, cut);
      const newTurns = turnStarts(region.map((entry) => entry.message)).length;
      if (newTurns > 0) {
        try {
          const result = await summarise({
            client: this.options.client,
            model: request.model,
            region: region.map((entry) => entry.message),
            inputBudget: Math.floor(window * SUMMARY_INPUT_SHARE),
            maxTokens: summaryTokens,
            signal: request.signal,
          });
          request.onSummaryUsage?.(
            result.usage ?? { promptTokens: result.promptTokens, completionTokens: messageTokens({ role: 'assistant', content: result.text }) },
            !result.usage,
          );
          const earlier = region.find((entry) => isSummary(entry.message));
          const total = newTurns + summarisedTurns(earlier?.message);
          const stand = summaryMessages(result.text, total).map((message) => ({ message, tokens: messageTokens(message) }));
          entries = [...stand, ...entries.slice(cut)];
          turns = newTurns;
        } catch (error) {
          if (error instanceof ModelAbortedError) throw error;
          summaryError = error instanceof ModelError ? error.message : errorMessage(error);
          this.options.logger.warn({ err: error }, 'the summary call failed; compaction goes on with pruning');
        }
      }
    }

    // 3. Still too large: the kept turns' older outputs too, all but the very last message.
    if (size(entries) > target) prune(0, entries.length - 1, target);

    const after = size(entries);
    if (after > window * FITS_SHARE) {
      if (pruned > 0 || turns > 0) conversation.replace(entries);
      const why = summaryError
        ? `summarising older turns failed (${summaryError})`
        : 'what is left is the latest turn itself (a message or tool result too large for this model)';
      return { kind: 'no_room', tokens: after, window, message: noRoomMessage(after, window, why) };
    }
    if (pruned === 0 && turns === 0) {
      const reason = summaryError ? `summarising failed: ${summaryError}` : 'nothing older than the last turns to compact';
      return { kind: 'unchanged', tokens: before, window, reason };
    }
    conversation.replace(entries);
    const outcome = { turns, pruned, before, after };
    this.options.logger.info({ ...outcome, window, mode }, 'context compacted');
    return { kind: 'compacted', ...outcome, window, notice: compactionNotice(outcome) };
  }
}

/** How many turns an earlier summary stands for. */
function summarisedTurns(message: ChatMessage | undefined): number {
  if (!message || typeof message.content !== 'string') return 0;
  const match = /\((\d+) turns? summarised/.exec(message.content);
  return match ? Number.parseInt(match[1], 10) : 0;
}
