import type { Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import { assessCommand, assessFileWrite, assessScript, pathContext, type Assessment } from './assess.js';
import type { PathContext } from './paths.js';
import type { ApprovalKind, ApprovalRequest } from './request.js';

export type { ApprovalRequest } from './request.js';

export type CommandVerdict = { allowed: true } | { allowed: false; error: string };

export interface GuardOptions extends Partial<PathContext> {
  /** `approvals.mode`: `off` skips asking; the floor stays. */
  mode: 'on' | 'off';
  /** The backend's `skipContainerGuards`: skips asking; the floor stays. */
  skipApproval?: boolean;
  /**
   * Asks the user; absent means nobody can be asked, so risky requests are refused. It owns
   * the wait: it resolves false on a denial, on its timeout, and when `request.signal` aborts.
   */
  requestApproval?: (request: ApprovalRequest) => Promise<boolean>;
  /** The tool call's signal: it ends the wait, and an aborted one refuses at once. */
  signal?: AbortSignal;
  logger?: Logger;
  /** Who is asking, for messages (`terminal`, `write_file`). */
  label?: string;
}

/** How the messages name what was refused. */
const WORDS: Record<ApprovalKind, { thing: string; notDone: string; never: string; byHand: string; instead: string }> = {
  command: { thing: 'command', notDone: 'not run', never: 'never run here', byHand: 'run it by hand', instead: 'Ask the user to run it, or find a safer command.' },
  write: { thing: 'write', notDone: 'not written', never: 'never made here', byHand: 'make this change by hand', instead: 'Ask the user to make this change, or write somewhere else.' },
  script: { thing: 'script', notDone: 'not run', never: 'never run here', byHand: 'run it by hand', instead: 'Ask the user to run it, or do the work with smaller steps.' },
};

/**
 * The approvals policy for one command: the floor refuses catastrophic commands whatever
 * the settings; risky ones run only when the user approves (unless approvals are off or
 * the backend skips container guards); everything else runs.
 */
export function guardCommand(command: string, options: GuardOptions): Promise<CommandVerdict> {
  return decide(assessCommand(command, options), { command, kind: 'command' }, { ...options, label: options.label ?? 'terminal' });
}

/**
 * The same policy for a file tool's write to `path` (`write_file`, `patch`). Every spelling
 * given is judged — the path as the model wrote it and as it resolves — and the worst
 * verdict counts, so `~/.ssh/x` is judged as the home folder's even where `~` is not expanded.
 */
export function guardFileWrite(tool: string, paths: readonly string[], options: GuardOptions): Promise<CommandVerdict> {
  const ctx = pathContext({ home: options.home, hermesHome: options.hermesHome });
  const assessment = worst(paths.map((path) => assessFileWrite(path, ctx)));
  const shown = paths[paths.length - 1] ?? '';
  return decide(assessment, { command: `${tool} ${shown}`, kind: 'write' }, { ...options, label: options.label ?? tool });
}

/**
 * An execute_code script before it starts. Its code is read for what it does (assessScript):
 * a floor command in it (`os.system("rm -rf ~")`, `shutil.rmtree(os.environ["HOME"])`) refuses
 * the whole script, naming the line, whatever the settings or answers; a risky one waits for
 * the user as a risky command does. `wholeScript` (`approvals.execute_code: ask` on this host)
 * is the reason to ask for every script; one question covers both. The script's own tool calls
 * (`terminal(…)`) are judged one by one as they come.
 */
export function guardScript(code: string, wholeScript: string | undefined, options: GuardOptions): Promise<CommandVerdict> {
  const assessment = assessScript(code, options);
  const asked = { command: code, kind: 'script' as const };
  const settings = { ...options, label: options.label ?? 'execute_code' };
  if (assessment.level !== 'safe' || wholeScript === undefined) return decide(assessment, asked, settings);
  return decide({ level: 'risky', reason: wholeScript }, asked, settings);
}

/** The worst of several assessments: blocked over risky over safe, the first reason of that level. */
export function worst(assessments: readonly Assessment[]): Assessment {
  return (
    assessments.find((one) => one.level === 'blocked') ??
    assessments.find((one) => one.level === 'risky') ?? { level: 'safe' }
  );
}

async function decide(
  assessment: Assessment,
  asked: { command: string; kind: ApprovalKind },
  options: GuardOptions & { label: string },
): Promise<CommandVerdict> {
  const { label } = options;
  const words = WORDS[asked.kind];
  if (assessment.level === 'safe') return { allowed: true };
  if (assessment.level === 'blocked') {
    options.logger?.warn({ [asked.kind]: asked.command, reason: assessment.reason }, `${label}: blocked by the approvals floor: ${assessment.reason}`);
    return {
      allowed: false,
      error: `${label}: blocked: ${assessment.reason}. This ${words.thing} is ${words.never}, whatever the approval settings; if it is really meant, the user must ${words.byHand} outside the gateway.`,
    };
  }
  if (options.mode === 'off' || options.skipApproval) return { allowed: true };
  if (!options.requestApproval) {
    return {
      allowed: false,
      error: `${label}: ${words.notDone}: ${assessment.reason}, which needs the user's approval, and there is no one to ask here. ${words.instead}`,
    };
  }
  if (options.signal?.aborted) return { allowed: false, error: `${label}: ${words.notDone}: the turn was interrupted before approval` };
  const request: ApprovalRequest = { command: asked.command, reason: assessment.reason, kind: asked.kind, ...(options.signal ? { signal: options.signal } : {}) };
  let approved: boolean;
  try {
    approved = (await options.requestApproval(request)) === true;
  } catch (error) {
    options.logger?.warn({ err: errorMessage(error) }, `${label}: asking for approval failed`);
    approved = false;
  }
  if (options.signal?.aborted) return { allowed: false, error: `${label}: ${words.notDone}: the turn was interrupted while waiting for approval` };
  options.logger?.info({ [asked.kind]: asked.command, reason: assessment.reason, approved }, `${label}: approval ${approved ? 'given' : 'refused'}`);
  return approved
    ? { allowed: true }
    : {
        allowed: false,
        error: `${label}: ${words.notDone}: the user did not approve it (${assessment.reason}); denied, no answer in time, or the request could not be shown. Do not retry it; ask the user what they want instead.`,
      };
}
