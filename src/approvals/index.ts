export { assessCommand, pathContext, type Assessment } from './assess.js';
export { guardCommand, type GuardOptions, type ApprovalRequest, type CommandVerdict } from './guard.js';
export { ApprovalBroker, type ApprovalBrokerOptions } from './broker.js';
export { parseCommands, type SimpleCommand, type Redirect } from './shell-parse.js';
export { type PathContext } from './paths.js';
