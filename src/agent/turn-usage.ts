import type { Logger } from '../shared/logger.js';
import type { SessionStore } from '../sessions/index.js';
import type { ModelUsage } from './model-client.js';

/** What one turn's model calls spent, as the API reported it or, where it did not, as counted here. */
export class TurnUsage {
  calls = 0;
  promptTokens = 0;
  completionTokens = 0;
  /** Of the prompt tokens, read from the provider's prompt cache and written to it. */
  cacheReadTokens = 0;
  cacheWriteTokens = 0;
  estimated = false;

  add(usage: ModelUsage | undefined, counted: number, completionCounted: number): void {
    this.calls++;
    this.promptTokens += usage?.promptTokens ?? counted;
    this.completionTokens += usage?.completionTokens ?? completionCounted;
    this.cacheReadTokens += usage?.cacheReadTokens ?? 0;
    this.cacheWriteTokens += usage?.cacheWriteTokens ?? 0;
    if (!usage) this.estimated = true;
  }

  /** Writes the turn's row; a failed write is logged. */
  record(store: SessionStore, sessionId: string, model: string, logger: Logger): void {
    if (this.calls === 0) return;
    try {
      store.usage.add(sessionId, {
        kind: 'turn',
        model,
        calls: this.calls,
        promptTokens: this.promptTokens,
        completionTokens: this.completionTokens,
        estimated: this.estimated,
        cacheReadTokens: this.cacheReadTokens,
        cacheWriteTokens: this.cacheWriteTokens,
      });
    } catch (error) {
      logger.warn({ err: error }, 'could not record token usage in state.db');
    }
  }
}
