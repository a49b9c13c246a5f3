import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/** One message of a session's history, stored as the OpenAI Chat Completions JSON. */
export type ChatMessage = ChatCompletionMessageParam;

/** A session as the store keeps it. */
export interface SessionRecord {
  id: string;
  /** The thread key the session belongs to (`console:alice`, `slack:T1:C1:1700000000.1`). */
  key: string;
  createdAt: number;
  updatedAt: number;
  /** Set when the last turn was interrupted; the next user message carries a note, then it is cleared. */
  interruptedReason: string | null;
  /** Variable names skills declared (skill_view) and that pass through to children from then on. */
  passthrough: string[];
}

/** One message of the model's view of a session, with its cached size (-1 when not counted yet). */
export interface ContextRow {
  seq: number;
  message: ChatMessage;
  tokens: number;
}

/** A message for the model's view and its size. */
export interface ContextEntry {
  message: ChatMessage;
  tokens: number;
}

/** Token totals of one model: of one turn or summary call, or summed within a session. */
export interface ModelUsage {
  model: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** True when the API reported no usage and the tokens were counted here instead. */
  estimated: boolean;
  /** Of the prompt tokens, those read from the provider's prompt cache, and those written to it. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** Tokens spent on one turn's model calls, or on one summary call (compaction). */
export interface UsageRecord extends ModelUsage {
  kind: 'turn' | 'summary';
  createdAt: number;
}

/** What /usage reports. */
export interface UsageSummary {
  lastTurn?: UsageRecord;
  byModel: ModelUsage[];
  /** Summary calls made by compaction in this session. */
  summaries: number;
}

/** Settings a thread keeps across sessions (`/model`, `/verbose`). */
export interface ThreadSettings {
  /** The model for this thread instead of `model.name`. */
  model?: string;
  /** Tool progress for this thread instead of `display.tool_progress`. */
  toolProgress?: 'off' | 'new' | 'all';
  /** `/voice on` or `only`: answers also, or only, arrive as voice notes (absent: off). */
  voice?: 'on' | 'only';
}
