import type { Logger } from '../../shared/logger.js';
import type { ChatMessage, ContextEntry, ContextRow } from '../../sessions/index.js';
import { repairHistory } from '../history.js';
import { withShortArguments } from './arguments.js';
import { messageTokens } from './tokens.js';

/** Where a conversation keeps its view: state.db for sessions, nowhere for subagents. */
export interface ViewStore {
  /** Adds `full` to the whole history and `view` to the model's view; returns the view row's seq and the revision. */
  append(full: ChatMessage, view: ContextEntry): { seq: number; rev: number };
  /** Replaces the view; returns the new seqs and the revision. */
  replace(entries: readonly ContextEntry[]): { seqs: number[]; rev: number };
  /** Drops the view from `seq` on; returns the revision. */
  truncateFrom(seq: number): number;
}

/** A view kept only in memory (a subagent's). */
export function memoryViewStore(): ViewStore {
  let seq = 0;
  let rev = 0;
  return {
    append: () => ({ seq: ++seq, rev: ++rev }),
    replace: (entries) => ({ seqs: entries.map(() => ++seq), rev: ++rev }),
    truncateFrom: () => ++rev,
  };
}

export interface ConversationOptions {
  /** Tool-call arguments longer than this are shortened in the view (compression.max_tool_argument_chars). */
  maxArgumentChars: number;
  logger: Logger;
}

/**
 * The model's view of one session: the messages the next request sends, each with its size
 * in tokens. The whole history goes to the store as it grows; the view holds what compaction
 * left. `ratio` is what the API counts per token counted here, learned from its usage reports.
 */
export class Conversation {
  /** API tokens per token counted here; 1 until the API reports usage. */
  ratio = 1;
  /** What the last request added to the view (system prompt, tool schemas), for sizes outside a turn. */
  overhead = 0;
  /** Request-only replacements by the view's own message object, so they survive a compaction that keeps the message. */
  private readonly overlays = new Map<ChatMessage, ContextEntry>();
  private total: number;

  private constructor(
    private rows: ContextRow[],
    public rev: number,
    private readonly store: ViewStore,
    private readonly options: ConversationOptions,
  ) {
    this.total = rows.reduce((sum, row) => sum + row.tokens, 0);
  }

  /** A new, empty conversation. */
  static empty(store: ViewStore, options: ConversationOptions): Conversation {
    return new Conversation([], 0, store, options);
  }

  /**
   * The view as state.db has it, made valid for the API (a tool call cut off by a crash gets
   * its placeholder result) and sized. A repaired view is written back, so seqs stay true.
   */
  static load(rows: readonly ContextRow[], rev: number, store: ViewStore, options: ConversationOptions): Conversation {
    const messages = rows.map((row) => row.message);
    const repaired = repairHistory(messages);
    const sameShape = repaired.length === messages.length && repaired.every((message, i) => message === messages[i]);
    let sized: ContextRow[] = rows.map((row) => (row.tokens >= 0 ? row : { ...row, tokens: messageTokens(row.message) }));
    const counted = sized.some((row, i) => row !== rows[i]);
    if (!sameShape || counted) {
      const entries = sameShape ? sized.map(({ message, tokens }) => ({ message, tokens })) : repaired.map((message) => ({ message, tokens: messageTokens(message) }));
      try {
        const written = store.replace(entries);
        sized = entries.map((entry, i) => ({ ...entry, seq: written.seqs[i] }));
        rev = written.rev;
      } catch (error) {
        options.logger.warn({ err: error }, 'could not write the repaired view back to state.db; it is used as repaired');
        sized = entries.map((entry) => ({ ...entry, seq: 0 }));
      }
    }
    return new Conversation(sized, rev, store, options);
  }

  /** How many messages the view has. */
  get length(): number {
    return this.rows.length;
  }

  /** The view's messages, with this turn's request-only replacements (images). */
  messages(): ChatMessage[] {
    if (this.overlays.size === 0) return this.rows.map((row) => row.message);
    return this.rows.map((row) => this.overlays.get(row.message)?.message ?? row.message);
  }

  /** The view's rows (seq, message, tokens), without overlays. */
  entries(): readonly ContextRow[] {
    return this.rows;
  }

  /** Tokens of the view as counted here (overlays included). */
  counted(): number {
    let total = this.total;
    for (const [message, overlay] of this.overlays) total += overlay.tokens - messageTokens(message);
    return total;
  }

  /** The size of a request of this view plus `overhead` tokens (system prompt, tools), as the API would count it. */
  estimate(overhead: number): number {
    return Math.ceil((this.counted() + overhead) * this.ratio);
  }

  /** Learns the ratio from what the API said a request took (`counted` is what it was counted here). */
  calibrate(promptTokens: number, counted: number): void {
    if (counted <= 0 || promptTokens <= 0) return;
    this.ratio = Math.min(4, Math.max(0.5, promptTokens / counted));
  }

  /**
   * Adds a message: the whole message to the history, a copy with long tool-call arguments
   * shortened to the view. A failed write is logged; the turn goes on.
   */
  add(message: ChatMessage): void {
    const view = withShortArguments(message, this.options.maxArgumentChars);
    const tokens = messageTokens(view);
    let seq = 0;
    try {
      const written = this.store.append(message, { message: view, tokens });
      seq = written.seq;
      this.rev = written.rev;
    } catch (error) {
      this.options.logger.error({ err: error }, 'could not save a message to state.db; the turn goes on');
    }
    this.rows.push({ seq, message: view, tokens });
    this.total += tokens;
  }

  /** The last message of the view. */
  last(): ChatMessage | undefined {
    return this.rows.at(-1)?.message;
  }

  /** Sends `replacement` instead of the view's `message` in this turn's requests only (a user message with its images). */
  overlay(message: ChatMessage, replacement: ChatMessage): void {
    if (replacement !== message) this.overlays.set(message, { message: replacement, tokens: messageTokens(replacement) });
  }

  /** Ends this turn's overlays. */
  clearOverlays(): void {
    this.overlays.clear();
  }

  /** Rewrites the messages `change` returns a replacement for, and stores the view when any changed. */
  rewrite(change: (message: ChatMessage) => ChatMessage | undefined): number {
    let changed = 0;
    const entries = this.rows.map((row) => {
      const replacement = change(row.message);
      if (!replacement) return { message: row.message, tokens: row.tokens };
      changed++;
      return { message: replacement, tokens: messageTokens(replacement) };
    });
    if (changed > 0) this.replace(entries);
    return changed;
  }

  /** Replaces the whole view (a compaction) and stores it. */
  replace(entries: readonly ContextEntry[]): void {
    const written = this.store.replace(entries);
    this.rows = entries.map((entry, i) => ({ ...entry, seq: written.seqs[i] }));
    this.total = this.rows.reduce((sum, row) => sum + row.tokens, 0);
    this.rev = written.rev;
    const kept = new Set(this.rows.map((row) => row.message));
    for (const message of [...this.overlays.keys()]) if (!kept.has(message)) this.overlays.delete(message);
  }

  /** Drops the view from row `index` on (/undo); the history keeps it. Returns the dropped messages. */
  truncate(index: number): ChatMessage[] {
    const dropped = this.rows.slice(index);
    if (dropped.length === 0) return [];
    const firstStored = dropped.find((row) => row.seq > 0);
    if (firstStored) this.rev = this.store.truncateFrom(firstStored.seq);
    this.rows = this.rows.slice(0, index);
    this.total = this.rows.reduce((sum, row) => sum + row.tokens, 0);
    for (const row of dropped) this.overlays.delete(row.message);
    return dropped.map((row) => row.message);
  }
}
