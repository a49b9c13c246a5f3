import type { ApprovalRequest } from './guard.js';

interface Pending {
  request: ApprovalRequest;
  finish(approved: boolean): void;
}

export interface ApprovalBrokerOptions {
  /** Milliseconds without an answer before a request is denied (`approvals.timeout` × 1000). */
  timeoutMs: number;
  /** Called when a request starts waiting, so the chat can show it (with buttons where it can). */
  onRequest?(sessionKey: string, request: ApprovalRequest): void;
}

/**
 * Where approval requests wait for `/approve` or `/deny`. Each session's requests wait in
 * order; `resolve` answers the oldest. No answer within the timeout denies; an aborted
 * signal (`/stop`, a new message) denies at once.
 */
export class ApprovalBroker {
  private readonly queues = new Map<string, Pending[]>();

  constructor(private readonly options: ApprovalBrokerOptions) {}

  /** Waits for the user's answer; true only when approved. */
  request(sessionKey: string, request: ApprovalRequest, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const entry: Pending = {
        request,
        finish: (approved) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.remove(sessionKey, entry);
          resolve(approved);
        },
      };
      const onAbort = () => entry.finish(false);
      const timer = setTimeout(() => entry.finish(false), this.options.timeoutMs);
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.queues.get(sessionKey) ?? [];
      queue.push(entry);
      this.queues.set(sessionKey, queue);
      this.options.onRequest?.(sessionKey, request);
    });
  }

  /** Answers the session's oldest waiting request; false when nothing was waiting. */
  resolve(sessionKey: string, approved: boolean): boolean {
    const first = this.queues.get(sessionKey)?.[0];
    if (!first) return false;
    first.finish(approved);
    return true;
  }

  /** The session's oldest waiting request, if any. */
  pending(sessionKey: string): ApprovalRequest | undefined {
    return this.queues.get(sessionKey)?.[0]?.request;
  }

  /** Denies everything the session has waiting (`/stop`, `/new`); returns how many. */
  cancel(sessionKey: string): number {
    const queue = [...(this.queues.get(sessionKey) ?? [])];
    for (const entry of queue) entry.finish(false);
    return queue.length;
  }

  private remove(sessionKey: string, entry: Pending): void {
    const queue = this.queues.get(sessionKey);
    if (!queue) return;
    const index = queue.indexOf(entry);
    if (index >= 0) queue.splice(index, 1);
    if (queue.length === 0) this.queues.delete(sessionKey);
  }
}
