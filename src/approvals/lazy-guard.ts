import type { CommandVerdict, GuardOptions } from './guard.js';

export type { CommandVerdict, GuardOptions } from './guard.js';

/*
 * The guards of guard.ts, loading the approvals engine (shell parser, rules, queue) at the
 * first call: the tools import these, so `hermes exec` and a gateway start load the engine
 * only when a command, file write or script is judged. Same arguments, same verdicts.
 */

export async function guardCommand(command: string, options: GuardOptions): Promise<CommandVerdict> {
  return (await import('./guard.js')).guardCommand(command, options);
}

export async function guardFileWrite(tool: string, paths: readonly string[], options: GuardOptions): Promise<CommandVerdict> {
  return (await import('./guard.js')).guardFileWrite(tool, paths, options);
}

export async function guardScript(code: string, wholeScript: string | undefined, options: GuardOptions): Promise<CommandVerdict> {
  return (await import('./guard.js')).guardScript(code, wholeScript, options);
}
