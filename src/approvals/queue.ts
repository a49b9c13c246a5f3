import { isAdmin } from '../config/admins.js';
import { errorMessage } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { approvalKey, keyString, personName, type ApprovalPerson, type ApprovalRequest, type ApprovalScope } from './request.js';
import { ApprovalRules } from './rule-store.js';

/** How a request ended. */
export type ApprovalOutcome =
  /** Answered yes; `rule` is the stored rule's number for "always". */
  | { kind: 'approved'; by: ApprovalPerson; scope: ApprovalScope; rule?: number; ruleError?: string }
  /** Allowed without asking: an earlier "this session" in the same session, or a stored rule. */
  | { kind: 'preapproved'; via: 'session' | 'rule'; rule?: number }
  | { kind: 'denied'; by: ApprovalPerson }
  | { kind: 'timed_out' }
  /** The wait's signal aborted (a new message, /stop, /new, a script's timeout, shutdown). */
  | { kind: 'cancelled' }
  /** Showing the request failed, so nobody could answer it. */
  | { kind: 'undelivered'; error: string };

/** What `answer` did. */
export type AnswerResult =
  | { kind: 'answered'; request: ApprovalRequest; outcome: Extract<ApprovalOutcome, { kind: 'approved' | 'denied' }> }
  | { kind: 'nothing_waiting' }
  | { kind: 'not_yours'; requester: ApprovalPerson };

/** An answer as the user gives it: `/deny`, or `/approve [session|always]`. */
export type ApprovalAnswer = { approved: false } | { approved: true; scope: ApprovalScope };

export interface ApprovalQueueOptions {
  /** Milliseconds without an answer before a request is refused (`approvals.timeout` × 1000). */
  timeoutMs: number;
  /** The stored "always" rules; in memory when left out. */
  rules?: ApprovalRules;
  /** `approvals.admins`: per platform, the user ids who may answer anyone's request. */
  admins?: Readonly<Record<string, readonly string[]>>;
  logger?: Logger;
}

export interface AskOptions {
  /** The thread the request belongs to; answers come from the same thread. */
  sessionKey: string;
  /** The request's id, as its buttons carry it: an answer naming it reaches this request only. */
  id?: string;
  request: ApprovalRequest;
  /** The person whose turn asked; only they or an admin may answer. */
  requester: ApprovalPerson;
  /** Ends the wait (the turn's signal); `request.signal` ends it too. */
  signal?: AbortSignal;
  /**
   * Shows the request to the user. The request is answerable from the start; when this
   * throws, the request ends at once as `undelivered`, so nothing is left waiting.
   */
  announce?: () => Promise<void>;
}

interface Waiting {
  id?: string;
  request: ApprovalRequest;
  requester: ApprovalPerson;
  finish(outcome: ApprovalOutcome): void;
}

/**
 * The one place approval requests wait. It owns the wait, the timeout, the abort and who
 * answered: a request ends exactly once (answered, timed out, cancelled, or not shown), and
 * is removed from its thread's queue the moment it ends, so the next answer always reaches
 * a live request. Requests a session grant or a stored rule covers are allowed at once.
 */
export class ApprovalQueue {
  readonly rules: ApprovalRules;
  private readonly waiting = new Map<string, Waiting[]>();
  /** Per thread, the keys approved "for this session" (until `/new`). */
  private readonly grants = new Map<string, Set<string>>();
  private readonly logger: Logger;

  constructor(private readonly options: ApprovalQueueOptions) {
    this.rules = options.rules ?? new ApprovalRules();
    this.logger = (options.logger ?? silentLogger()).child({ component: 'approvals' });
  }

  /** Waits for the answer to one request; see ApprovalOutcome for how it can end. */
  async ask(options: AskOptions): Promise<ApprovalOutcome> {
    const { sessionKey, request } = options;
    const key = approvalKey(request);
    if (this.grants.get(sessionKey)?.has(keyString(key))) return this.log(options, { kind: 'preapproved', via: 'session' });
    const rule = this.rules.find(key);
    if (rule !== undefined) return this.log(options, { kind: 'preapproved', via: 'rule', rule });
    const signals = [options.signal, request.signal].filter((signal): signal is AbortSignal => signal !== undefined);
    if (signals.some((signal) => signal.aborted)) return this.log(options, { kind: 'cancelled' });

    let entry!: Waiting;
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      const onAbort = () => entry.finish({ kind: 'cancelled' });
      entry = {
        id: options.id,
        request,
        requester: options.requester,
        finish: (result) => {
          // The first ending wins; later ones (a timeout racing an answer) do nothing.
          entry.finish = () => {};
          clearTimeout(timer);
          for (const signal of signals) signal.removeEventListener('abort', onAbort);
          this.remove(sessionKey, entry);
          resolve(result);
        },
      };
      // Declared after `entry`: finish runs only once the timer exists (no signal has aborted yet).
      const timer = setTimeout(() => entry.finish({ kind: 'timed_out' }), this.options.timeoutMs);
      timer.unref?.();
      for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
    });
    const queue = this.waiting.get(sessionKey) ?? [];
    queue.push(entry);
    this.waiting.set(sessionKey, queue);
    // Answerable at once: a platform may show the message before our send call returns.
    options.announce?.().catch((error: unknown) => entry.finish({ kind: 'undelivered', error: errorMessage(error) }));
    return this.log(options, await outcome);
  }

  /**
   * Answers the thread's oldest waiting request. Only the person whose turn asked,
   * or an admin of the answerer's platform, may answer; anyone else gets `not_yours` and the
   * request keeps waiting. With `requestId` (a button press) it answers that request or
   * nothing: a press of an old or forged button never reaches another request.
   */
  answer(sessionKey: string, by: ApprovalPerson, answer: ApprovalAnswer, requestId?: string): AnswerResult {
    const waiting = this.waiting.get(sessionKey);
    const entry = requestId === undefined ? waiting?.[0] : waiting?.find((candidate) => candidate.id === requestId);
    if (!entry) return { kind: 'nothing_waiting' };
    if (!this.mayAnswer(entry.requester, by)) return { kind: 'not_yours', requester: entry.requester };
    if (!answer.approved) {
      const outcome = { kind: 'denied', by } as const;
      entry.finish(outcome);
      return { kind: 'answered', request: entry.request, outcome };
    }
    const outcome: Extract<ApprovalOutcome, { kind: 'approved' }> = { kind: 'approved', by, scope: answer.scope };
    const key = approvalKey(entry.request);
    if (answer.scope === 'always') {
      try {
        outcome.rule = this.rules.add({ ...key, shown: shownForm(entry.request), by: `${by.platform}:${by.id} (${personName(by)})`, added: new Date().toISOString() });
      } catch (error) {
        // The request is still approved; it just is not remembered past this session.
        outcome.ruleError = errorMessage(error);
        outcome.scope = 'session';
        this.logger.error({ err: outcome.ruleError }, 'could not store an "always" approval rule');
      }
    }
    if (outcome.scope === 'session') {
      const grants = this.grants.get(sessionKey) ?? new Set<string>();
      grants.add(keyString(key));
      this.grants.set(sessionKey, grants);
    }
    entry.finish(outcome);
    return { kind: 'answered', request: entry.request, outcome };
  }

  /** The thread's oldest waiting request, if any. */
  pending(sessionKey: string): ApprovalRequest | undefined {
    return this.waiting.get(sessionKey)?.[0]?.request;
  }

  /** How many requests the thread has waiting. */
  size(sessionKey: string): number {
    return this.waiting.get(sessionKey)?.length ?? 0;
  }

  /** How many distinct requests the thread has approved "for this session". */
  sessionGrants(sessionKey: string): number {
    return this.grants.get(sessionKey)?.size ?? 0;
  }

  /** `/new`: forgets the thread's "this session" grants. Its waiting requests end with their turn's signal. */
  endSession(sessionKey: string): void {
    this.grants.delete(sessionKey);
  }

  /** Whether `by` may answer a request `requester` made: the same person, or an admin of the same platform. */
  mayAnswer(requester: ApprovalPerson, by: ApprovalPerson): boolean {
    if (requester.platform !== by.platform) return false;
    return requester.id === by.id || isAdmin(this.options.admins, by.platform, by.id);
  }

  private remove(sessionKey: string, entry: Waiting): void {
    const queue = this.waiting.get(sessionKey);
    if (!queue) return;
    const left = queue.filter((other) => other !== entry);
    if (left.length > 0) this.waiting.set(sessionKey, left);
    else this.waiting.delete(sessionKey);
  }

  private log(options: AskOptions, outcome: ApprovalOutcome): ApprovalOutcome {
    const { request, requester, sessionKey } = options;
    const by = 'by' in outcome ? `${outcome.by.platform}:${outcome.by.id}` : undefined;
    this.logger.info(
      { thread: sessionKey, kind: request.kind ?? 'command', reason: request.reason, requester: `${requester.platform}:${requester.id}`, outcome: outcome.kind, ...(by ? { by } : {}) },
      `approval ${outcome.kind}: ${request.reason}`,
    );
    return outcome;
  }
}

/** What a rule shows in /status: a command or write as written (one line), a script's first line. */
function shownForm(request: ApprovalRequest): string {
  const lines = request.command.trim().split('\n');
  const first = lines[0].length > 120 ? `${lines[0].slice(0, 119)}…` : lines[0];
  if (request.kind === 'script') return `script: ${first}${lines.length > 1 ? ` … (${lines.length} lines)` : ''}`;
  return lines.length > 1 ? `${first} … (${lines.length} lines)` : first;
}
