import { listedAdmins, type HermesConfig } from '../config/index.js';
import type { Logger } from '../shared/logger.js';
import {
  ApprovalQueue,
  ApprovalRules,
  personName,
  type AnswerResult,
  type ApprovalAnswer,
  type ApprovalOutcome,
  type ApprovalPerson,
  type ApprovalRequest,
  type ApprovalRule,
} from '../approvals/index.js';

/** Longest part of a command or script an approval request shows; the rest is counted, not shown. */
const SHOWN_CHARS = 1500;
const SHOWN_LINES = 40;

/** The gateway's approval queue for `config`: its timeout and admins, rules in `rulesFile` (memory when left out). */
export function approvalQueueFor(config: HermesConfig, options: { rulesFile?: string; logger?: Logger } = {}): ApprovalQueue {
  return new ApprovalQueue({
    timeoutMs: config.approvals.timeout * 1000,
    admins: listedAdmins(config),
    rules: new ApprovalRules({ file: options.rulesFile, logger: options.logger }),
    logger: options.logger,
  });
}

/** What `/approve …` or `/deny` asks for. */
export type ApprovalCommand =
  | { kind: 'answer'; answer: ApprovalAnswer }
  | { kind: 'forget'; rule: number }
  | { kind: 'invalid'; message: string };

const USAGE = '/approve (once), /approve session, /approve always, /deny, or /approve forget <n> to remove rule n (/status lists them)';

/** Reads `/approve [session|always|forget <n>]` and `/deny`. */
export function parseApprovalCommand(name: 'approve' | 'deny', args: string): ApprovalCommand {
  const words = args.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (name === 'deny') {
    return words.length === 0 ? { kind: 'answer', answer: { approved: false } } : { kind: 'invalid', message: `/deny takes no argument. Use ${USAGE}.` };
  }
  const [first, second, ...rest] = words;
  if (first === undefined || (first === 'once' && second === undefined)) return { kind: 'answer', answer: { approved: true, scope: 'once' } };
  if ((first === 'session' || first === 'always') && second === undefined) return { kind: 'answer', answer: { approved: true, scope: first } };
  if (first === 'forget' && second !== undefined && /^\d+$/.test(second) && rest.length === 0) return { kind: 'forget', rule: Number(second) };
  return { kind: 'invalid', message: `I did not understand "/approve ${args.trim()}". Use ${USAGE}.` };
}

/** The request as the chat shows it: `header` stays when the message is settled, `text` adds how to answer. */
export function approvalPrompt(request: ApprovalRequest, requester: ApprovalPerson, timeoutSeconds: number): { header: string; text: string } {
  const who = personName(requester);
  const what = request.kind === 'script' ? 'script' : request.kind === 'write' ? 'write' : 'command';
  const header = `⚠️ Approval needed (${request.reason}):\n${shownBlock(request)}`;
  const text = [
    header,
    '',
    `Asked by ${who}; only ${who} or an admin can answer. /approve runs this ${what} once, /approve session allows it again until /new, ` +
      `/approve always keeps it as a rule, /deny refuses. Refused after ${timeoutSeconds} s without an answer.`,
  ].join('\n');
  return { header, text };
}

/** The line that replaces the buttons once a request has ended. */
export function approvalOutcomeText(outcome: ApprovalOutcome, timeoutSeconds: number): string {
  switch (outcome.kind) {
    case 'approved': {
      const by = personName(outcome.by);
      if (outcome.scope === 'always') return `✅ Approved by ${by}, always (rule ${outcome.rule}).`;
      if (outcome.scope === 'session') return `✅ Approved by ${by} for this session.`;
      return `✅ Approved by ${by}.`;
    }
    case 'preapproved':
      return outcome.via === 'rule' ? `✅ Allowed by rule ${outcome.rule}.` : '✅ Allowed for this session.';
    case 'denied':
      return `❌ Denied by ${personName(outcome.by)}.`;
    case 'timed_out':
      return `⏱ Refused: nobody answered within ${timeoutSeconds} s.`;
    case 'cancelled':
      return '⏹ Cancelled: the turn ended before an answer.';
    case 'undelivered':
      return '⚠️ Refused: the request could not be shown.';
  }
}

/** The reply to `/approve` or `/deny`. */
export function answerReply(result: AnswerResult): string {
  switch (result.kind) {
    case 'nothing_waiting':
      return 'No command is waiting for approval.';
    case 'not_yours':
      return `Only ${personName(result.requester)} or an admin can answer this request.`;
    case 'answered': {
      const { outcome } = result;
      if (outcome.kind === 'denied') return 'Denied.';
      if (outcome.ruleError) return `Approved for this session only: the rule could not be saved (${outcome.ruleError}).`;
      if (outcome.scope === 'session') return 'Approved for this session: the same request runs without asking until /new.';
      if (outcome.scope === 'always') return `Approved always: kept as rule ${outcome.rule} (/status lists the rules; /approve forget ${outcome.rule} removes it).`;
      return 'Approved.';
    }
  }
}

/** The reply to `/approve forget <n>`. */
export function forgetReply(rules: ApprovalRules, number: number): string {
  try {
    const removed = rules.remove(number);
    if (!removed) {
      const count = rules.list().length;
      return count === 0 ? 'There are no approval rules.' : `There is no rule ${number}; the rules are numbered 1 to ${count} (see /status).`;
    }
    return `Removed rule ${number}: ${removed.shown} (${removed.reason}). It asks again from now on.`;
  } catch (error) {
    return `Could not remove rule ${number}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The `/status` lines about approvals: rules kept for good, and how many requests this session allows. */
export function approvalStatusLines(rules: ApprovalRules, sessionGrants: number): string[] {
  const lines: string[] = [];
  const problem = rules.problem();
  const list: ApprovalRule[] = rules.list();
  if (problem) lines.push(`Approval rules: not used: ${problem}`);
  else if (list.length === 0) lines.push('Approval rules: none');
  else {
    lines.push('Approval rules (/approve forget <n> removes one):');
    list.forEach((rule, index) => lines.push(`  ${index + 1}. ${rule.shown} — ${rule.reason} (by ${rule.by})`));
  }
  if (sessionGrants > 0) lines.push(`Approved for this session: ${sessionGrants} request${sessionGrants === 1 ? '' : 's'} (until /new)`);
  return lines;
}

/**
 * The command, write or script in a code block (so no platform's formatting changes what is
 * shown), cut to a readable length with the rest counted.
 */
function shownBlock(request: ApprovalRequest): string {
  const full = request.command.replace(/\n+$/, '');
  let shown = full.split('\n').slice(0, SHOWN_LINES).join('\n');
  if (shown.length > SHOWN_CHARS) shown = shown.slice(0, SHOWN_CHARS);
  const fence = '`'.repeat(Math.max(3, ...[...full.matchAll(/`+/g)].map((run) => run[0].length + 1)));
  const language = request.kind === 'script' ? 'python' : '';
  const block = `${fence}${language}\n${shown}\n${fence}`;
  if (shown.length === full.length) return block;
  const hiddenLines = full.split('\n').length - shown.split('\n').length;
  const hiddenChars = full.length - shown.length;
  const rest = hiddenLines > 0 ? `${hiddenLines} more line${hiddenLines === 1 ? '' : 's'}` : `${hiddenChars} more characters`;
  return `${block}\n… (${rest} not shown)`;
}
