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
