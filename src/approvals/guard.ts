import type { Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import { assessCommand } from './assess.js';
import type { PathContext } from './paths.js';

/** What the user is asked to approve. */
export interface ApprovalRequest {
  command: string;
  /** Why, in a few words (`git reset --hard discards uncommitted work`). */
  reason: string;
}

export type CommandVerdict = { allowed: true } | { allowed: false; error: string };

export interface GuardOptions extends Partial<PathContext> {
  /** `approvals.mode`: `off` skips asking; the floor stays. */
  mode: 'on' | 'off';
  /** The backend's `skipContainerGuards`: skips asking; the floor stays. */
  skipApproval?: boolean;
  /** Asks the user; absent means nobody can be asked, so risky commands are refused. */
  requestApproval?: (request: ApprovalRequest) => Promise<boolean>;
  /** The turn's signal: when it aborts during the wait, the command is refused at once. */
  signal?: AbortSignal;
  logger?: Logger;
  /** Milliseconds to wait for an answer before denying (`approvals.timeout`), whoever asks. */
  timeoutMs?: number;
  /** Who is asking, for messages (`terminal`). */
  label?: string;
}

/**
 * The approvals policy for one command: the floor refuses catastrophic commands whatever
 * the settings; risky ones run only when the user approves (unless approvals are off or
 * the backend skips container guards); everything else runs.
 */
export async function guardCommand(command: string, options: GuardOptions): Promise<CommandVerdict> {
  const label = options.label ?? 'terminal';
  const assessment = assessCommand(command, options);
  if (assessment.level === 'safe') return { allowed: true };
  if (assessment.level === 'blocked') {
    options.logger?.warn({ command, reason: assessment.reason }, `${label}: blocked by the approvals floor: ${assessment.reason}`);
    return {
      allowed: false,
      error: `${label}: blocked: ${assessment.reason}. This command is never run here, whatever the approval settings; if it is really meant, the user must run it by hand outside the gateway.`,
    };
  }
  if (options.mode === 'off' || options.skipApproval) return { allowed: true };
  if (!options.requestApproval) {
    return {
      allowed: false,
      error: `${label}: not run: ${assessment.reason}, which needs the user's approval, and there is no one to ask here. Ask the user to run it, or find a safer command.`,
    };
  }
  if (options.signal?.aborted) return { allowed: false, error: `${label}: not run: the turn was interrupted before approval` };
  let approved: boolean;
  try {
    approved = await waitForAnswer(options.requestApproval({ command, reason: assessment.reason }), options.timeoutMs, options.signal);
  } catch (error) {
    options.logger?.warn({ err: errorMessage(error) }, `${label}: asking for approval failed`);
    approved = false;
  }
  if (options.signal?.aborted) return { allowed: false, error: `${label}: not run: the turn was interrupted while waiting for approval` };
  options.logger?.info({ command, reason: assessment.reason, approved }, `${label}: approval ${approved ? 'given' : 'refused'}`);
  return approved
    ? { allowed: true }
    : { allowed: false, error: `${label}: not run: the user did not approve it (${assessment.reason}); denied or no answer in time. Do not retry it; ask the user what they want instead.` };
}

/** The answer, or false when the time runs out or the signal aborts first. */
function waitForAnswer(answer: Promise<boolean>, timeoutMs: number | undefined, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const done = (value: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(false);
    if (timeoutMs !== undefined) timer = setTimeout(() => done(false), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    answer.then((value) => done(value === true), (error: unknown) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
  });
}
