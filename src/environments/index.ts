export type { Environment, ExecuteOptions, ExecuteResult, HostCommand, CreateEnvironmentOptions } from './types.js';
export { LocalEnvironment, type LocalEnvironmentOptions } from './local.js';
export { buildChildEnv, looksSecret, HERMES_ALLOWED, type ChildEnvOptions } from './child-env.js';
export { runInProcessGroup, abortReason, interruptedNotice, type RunGroupOptions, type RunGroupResult } from './run-group.js';
export { terminateGroup, killGroup, groupAlive, signalGroup } from './process-group.js';
