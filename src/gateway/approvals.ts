import type { ApprovalRequest } from '../agent/types.js';

/**
 * What the gateway needs of an approval broker: `ApprovalBroker` from src/approvals has this
 * shape (tests may pass their own). `request` resolves false on timeout and at once when
 * `signal` aborts; `resolve` answers the session's oldest waiting request.
 */
export interface ApprovalBrokerLike {
  request(sessionKey: string, request: ApprovalRequest, signal?: AbortSignal): Promise<boolean>;
  resolve(sessionKey: string, approved: boolean): unknown;
}

/** How a request ended: answered, left unanswered until the timeout, or dropped with its turn. */
export type ApprovalOutcome = { kind: 'approved' | 'denied'; by: string } | { kind: 'timed_out' } | { kind: 'cancelled' };

/** The line that replaces the buttons once a request has ended. */
export function approvalOutcomeText(outcome: ApprovalOutcome, timeoutSeconds: number): string {
  switch (outcome.kind) {
    case 'approved':
      return `✅ Approved by ${outcome.by}.`;
    case 'denied':
      return `❌ Denied by ${outcome.by}.`;
    case 'timed_out':
      return `⏱ Refused: nobody answered within ${timeoutSeconds} s.`;
    case 'cancelled':
      return '⏹ Cancelled: the turn ended before an answer.';
  }
}

interface Waiting {
  answer?: { approved: boolean; by: string };
}

/**
 * Wraps a broker so the gateway knows which threads have a request waiting (to answer
 * `/approve` with "nothing is waiting" instead of silence) and how each request ended.
 */
export class ApprovalDesk {
  /** Per thread, the requests waiting, oldest first: the order in which the broker answers them. */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(private readonly broker: ApprovalBrokerLike) {}

  /** Asks and waits; `announce` tells the user what is waiting before the wait starts. */
  async ask(sessionKey: string, request: ApprovalRequest, signal: AbortSignal, announce: () => Promise<void>): Promise<ApprovalOutcome> {
    const entry: Waiting = {};
    const queue = this.waiting.get(sessionKey) ?? [];
    queue.push(entry);
    this.waiting.set(sessionKey, queue);
    try {
      const answer = this.broker.request(sessionKey, request, signal);
      await announce();
      const approved = await answer;
      if (entry.answer) return { kind: entry.answer.approved && approved ? 'approved' : 'denied', by: entry.answer.by };
      return signal.aborted ? { kind: 'cancelled' } : { kind: 'timed_out' };
    } finally {
      this.drop(sessionKey, entry);
    }
  }

  /** Answers the thread's oldest waiting request for `by`; false when nothing was waiting. */
  answer(sessionKey: string, approved: boolean, by: string): boolean {
    const oldest = this.waiting.get(sessionKey)?.find((entry) => !entry.answer);
    if (!oldest) return false;
    oldest.answer = { approved, by };
    this.broker.resolve(sessionKey, approved);
    return true;
  }

  private drop(sessionKey: string, entry: Waiting): void {
    const queue = this.waiting.get(sessionKey) ?? [];
    const left = queue.filter((other) => other !== entry);
    if (left.length > 0) this.waiting.set(sessionKey, left);
    else this.waiting.delete(sessionKey);
  }
}
