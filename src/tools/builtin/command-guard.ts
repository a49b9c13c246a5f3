import { homedir } from 'node:os';
import type { ToolContext } from '../types.js';
import { guardCommand } from '../../approvals/index.js';
import { environmentSkipsGuards } from '../../environments/index.js';

/** The verdict on a command before `terminal` runs it. */
export type CommandVerdict = { allowed: true } | { allowed: false; error: string };

/**
 * The approvals hook: `terminal` calls this before every command. The floor refuses
 * catastrophic commands always; risky ones wait for `ctx.requestApproval` (refused when
 * there is none, on deny, on `approvals.timeout`, or when the turn is interrupted), unless
 * `approvals.mode` is off or the session's backend declares `skipContainerGuards`.
 */
export async function checkCommand(command: string, ctx: ToolContext): Promise<CommandVerdict> {
  return guardCommand(command, {
    mode: ctx.config.approvals.mode,
    skipApproval: environmentSkipsGuards(ctx.environment),
    requestApproval: ctx.requestApproval,
    signal: ctx.signal,
    timeoutMs: ctx.config.approvals.timeout * 1000,
    home: homedir(),
    hermesHome: ctx.paths.home,
    logger: ctx.logger,
    label: 'terminal',
  });
}
