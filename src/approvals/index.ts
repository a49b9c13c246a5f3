export { assessCommand, assessFileWrite, assessScript, pathContext, type Assessment } from './assess.js';
export { guardCommand, guardFileWrite, guardScript, worst, type GuardOptions, type CommandVerdict } from './guard.js';
export { ApprovalQueue, type ApprovalQueueOptions, type ApprovalOutcome, type ApprovalAnswer, type AnswerResult, type AskOptions } from './queue.js';
export { ApprovalRules, ApprovalRulesError, type ApprovalRule } from './rule-store.js';
export {
  approvalKey,
  normalizedForm,
  personName,
  type ApprovalRequest,
  type ApprovalKind,
  type ApprovalScope,
  type ApprovalPerson,
  type ApprovalKey,
} from './request.js';
export { parseCommands, type SimpleCommand, type Redirect } from './shell-parse.js';
export { type PathContext } from './paths.js';
