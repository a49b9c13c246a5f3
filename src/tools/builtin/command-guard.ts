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
 * `approvals.execute_code: ask`: asks once for a whole script before it starts, on backends
 * that run on this host (`runsOnThisHost`: local, sandbox — not remote ones) and do not skip container guards.
 * `approvals.mode: off` skips it as it skips every ask.
 */
export async function checkScript(code: string, ctx: ToolContext): Promise<CommandVerdict> {
  if (ctx.config.approvals.execute_code !== 'ask') return { allowed: true };
  if (!runsOnThisHost(ctx.environment)) return { allowed: true };
  return guardScript(code, 'runs a Python script on this host', guardOptions(ctx, 'execute_code'));
}
