/* Every group of the floor suite, in the order the tests and the bench take them. */
import { CARRIERS, LONG_OPTIONS } from './carriers.js';
import { EXPANSION_NAMES, IFS_CASES, SUBSTITUTIONS } from './expansion.js';
import { CONTROL_CHARACTERS, FLOOR, FORK_BOMBS, INTERPRETER_CODE, TMP_ITSELF } from './floor.js';
import { INTERPRETERS } from './interpreters.js';
import { LISTED_KINDS } from './listed.js';
import { ORDINARY } from './ordinary.js';
import { ENV_SPLIT, NEVER_RUNS, NOT_COMMENTS } from './shell-reading.js';
import { PARITY_ASKS, PARITY_PASSES } from './parity-rules.js';
import { GATEWAY_KILL, METADATA } from './processes.js';
import { DOWNLOADS, STDIN_SHELLS } from './stdin.js';
import type { CaseGroup } from './types.js';
import { CONTAINERS_AND_INFRASTRUCTURE, CREDENTIAL_WRITES, DATABASES, HERMES_SETTINGS } from './writes.js';

export { ISSUE_COMMANDS } from './issue.js';
export { GATEWAY_PID, SUITE_CONTEXT, type Case, type CaseGroup, type Verdict } from './types.js';
export { ORDINARY } from './ordinary.js';
export { ISSUE_22_COMMANDS } from './interpreters.js';
export { SCRIPT_CASES, type ScriptCase } from './scripts.js';

export const CASE_GROUPS: readonly CaseGroup[] = [
  EXPANSION_NAMES,
  IFS_CASES,
  SUBSTITUTIONS,
  CARRIERS,
  LONG_OPTIONS,
  STDIN_SHELLS,
  DOWNLOADS,
  CREDENTIAL_WRITES,
  HERMES_SETTINGS,
  GATEWAY_KILL,
  METADATA,
  FLOOR,
  TMP_ITSELF,
  CONTROL_CHARACTERS,
  FORK_BOMBS,
  INTERPRETER_CODE,
  INTERPRETERS,
  DATABASES,
  CONTAINERS_AND_INFRASTRUCTURE,
  ...LISTED_KINDS,
  NOT_COMMENTS,
  ENV_SPLIT,
  NEVER_RUNS,
  PARITY_ASKS,
  PARITY_PASSES,
  ORDINARY,
];
