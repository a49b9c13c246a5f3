import { homedir } from 'node:os';
import type { ToolContext } from '../types.js';
import { guardCommand, guardFileWrite, guardScript, type GuardOptions } from '../../approvals/lazy-guard.js';
import { environmentSkipsGuards, runsOnThisHost } from '../../environments/index.js';
import { resolveEnvPath } from './env-files.js';

/** The verdict on a command before `terminal` runs it. */
export type CommandVerdict = { allowed: true } | { allowed: false; error: string };

/** The approvals settings of this call: the mode, the backend's guards, who to ask, the paths the checks see. */
function guardOptions(ctx: ToolContext, label: string): GuardOptions {
  return {
    mode: ctx.config.approvals.mode,
    skipApproval: environmentSkipsGuards(ctx.environment),
    requestApproval: ctx.requestApproval,
    signal: ctx.signal,
    home: homedir(),
    hermesHome: ctx.paths.home,
    logger: ctx.logger,
    label,
  };
}

/**
 * The approvals hook: `terminal` calls this before every command. The floor refuses
 * catastrophic commands always; risky ones wait for `ctx.requestApproval` (refused when
 * there is none, on deny, on `approvals.timeout`, or when the turn is interrupted), unless
 * `approvals.mode` is off or the session's backend declares `skipContainerGuards`.
 */
export async function checkCommand(command: string, ctx: ToolContext): Promise<CommandVerdict> {
  return guardCommand(command, guardOptions(ctx, 'terminal'));
}

/**
 * The same hook for `write_file` and `patch`: a write the assessment calls risky (`~/.ssh`,
 * shell start-up files, `HERMES_HOME/config.yaml`, …) waits for approval exactly as a risky
 * command does. The path is judged as written and as the environment resolves it.
 */
export async function checkFileWrite(tool: string, path: string, ctx: ToolContext): Promise<CommandVerdict> {
  const resolved = resolveEnvPath(ctx.environment, path);
  return guardFileWrite(tool, path === resolved ? [resolved] : [path, resolved], guardOptions(ctx, tool));
}

/**
 * The hook for execute_code, before a script starts, on every backend: the script's code is
 * judged by what it does (a floor command in it refuses it, whatever the approvals; a risky
 * one waits for approval as `terminal` does). With `approvals.execute_code: ask` every script
 * also waits, on backends that run on this host (`runsOnThisHost`: local, sandbox — not remote
 * ones) and do not skip container guards. `approvals.mode: off` skips every ask, never the floor.
 */
export async function checkScript(code: string, ctx: ToolContext): Promise<CommandVerdict> {
  const whole = ctx.config.approvals.execute_code === 'ask' && runsOnThisHost(ctx.environment) ? 'runs a Python script on this host' : undefined;
  return guardScript(code, whole, guardOptions(ctx, 'execute_code'));
}
