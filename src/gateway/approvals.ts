import type { ApprovalRequest } from '../agent/types.js';

/**
 * What the gateway needs of an approval broker: the environments module's `ApprovalBroker`
 * has this shape. `request` resolves false on timeout and at once when `signal` aborts.
 */
export interface ApprovalBrokerLike {
  request(sessionKey: string, request: ApprovalRequest, signal?: AbortSignal): Promise<boolean>;
  resolve(sessionKey: string, approved: boolean): unknown;
}

/**
 * A small broker used when none is given: one pending request per thread, denied after
 * `timeoutMs`, denied at once on abort.
 */
export class LocalApprovalBroker implements ApprovalBrokerLike {
  private readonly pending = new Map<string, (approved: boolean) => void>();

  constructor(private readonly timeoutMs: number) {}

  request(sessionKey: string, _request: ApprovalRequest, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    // A newer request replaces an older one, which is denied.
    this.pending.get(sessionKey)?.(false);
    return new Promise((resolve) => {
      const finish = (approved: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (this.pending.get(sessionKey) === finish) this.pending.delete(sessionKey);
        resolve(approved);
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(false), this.timeoutMs);
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(sessionKey, finish);
    });
  }

  resolve(sessionKey: string, approved: boolean): boolean {
    const finish = this.pending.get(sessionKey);
    if (!finish) return false;
    finish(approved);
    return true;
  }
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
