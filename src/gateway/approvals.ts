import type { ApprovalRequest } from '../agent/types.js';

/**
 * What the gateway needs of an approval broker: `ApprovalBroker` from src/approvals has this
 * shape (tests may pass their own). `request` resolves false on timeout and at once when `signal` aborts.
 */
export interface ApprovalBrokerLike {
  request(sessionKey: string, request: ApprovalRequest, signal?: AbortSignal): Promise<boolean>;
  resolve(sessionKey: string, approved: boolean): unknown;
}

/**
 * Wraps a broker so the gateway knows which threads have a request waiting (to answer
 * `/approve` with "nothing is waiting" instead of silence).
 */
export class ApprovalDesk {
  private readonly waiting = new Map<string, number>();

  constructor(private readonly broker: ApprovalBrokerLike) {}

  /** Asks and waits; `announce` tells the user what is waiting before the wait starts. */
  async ask(sessionKey: string, request: ApprovalRequest, signal: AbortSignal, announce: () => Promise<void>): Promise<boolean> {
    this.waiting.set(sessionKey, (this.waiting.get(sessionKey) ?? 0) + 1);
    try {
      const answer = this.broker.request(sessionKey, request, signal);
      await announce();
      return await answer;
    } finally {
      const left = (this.waiting.get(sessionKey) ?? 1) - 1;
      if (left > 0) this.waiting.set(sessionKey, left);
      else this.waiting.delete(sessionKey);
    }
  }

  /** True when the thread had a request waiting (now answered). */
  answer(sessionKey: string, approved: boolean): boolean {
    if (!this.waiting.has(sessionKey)) return false;
    this.broker.resolve(sessionKey, approved);
    return true;
  }
}
