import type { Logger } from '../shared/logger.js';
import type { SessionStore } from '../sessions/index.js';
import type { Compactor } from './context/compactor.js';
import type { Conversation } from './context/conversation.js';
import type { ContextWindows } from './context/window.js';
import type { LoopCompaction } from './loop.js';
import type { ModelUsage } from './model-client.js';

/** Below this, a window guessed from a refused request is not believed. */
const SMALLEST_WINDOW = 1024;

export interface TurnCompactionOptions {
  compactor: Compactor;
  windows: ContextWindows;
  conversation: Conversation;
  /** Whose kernel holds old outputs' data. */
  owner: string;
  model: string;
  signal: AbortSignal;
  onSummaryUsage?: (usage: ModelUsage, estimated: boolean) => void;
}

/** How one turn (or subagent) keeps its requests within its model's window. */
export function turnCompaction(options: TurnCompactionOptions): LoopCompaction {
  const { compactor, windows, conversation, owner, model, signal } = options;
  return {
    compact: (mode, overhead) => compactor.compact({ conversation, owner, model, overhead, signal, mode, onSummaryUsage: options.onSummaryUsage }),
    learn(error, requestTokens) {
      // The server's own number when it gave one; else a little under what it refused.
      const limit = error.limit ?? Math.max(SMALLEST_WINDOW, Math.floor(requestTokens * 0.9));
      windows.learn(model, limit);
    },
  };
}

/** Records a summary call's tokens in the session's usage. */
export function recordSummaryUsage(store: SessionStore, sessionId: string, model: string, logger: Logger) {
  return (usage: ModelUsage, estimated: boolean): void => {
    try {
      store.usage.add(sessionId, {
        kind: 'summary',
        model,
        calls: 1,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        estimated,
        cacheReadTokens: usage.cacheReadTokens ?? 0,
        cacheWriteTokens: usage.cacheWriteTokens ?? 0,
      });
    } catch (error) {
      logger.warn({ err: error }, 'could not record the summary call in state.db');
    }
  };
}
