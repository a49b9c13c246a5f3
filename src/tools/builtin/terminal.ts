import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../types.js';
import { checkCommand } from './command-guard.js';
import { shellQuote } from '../../shared/shell-quote.js';
import { capHeadTail } from './text.js';
import { cleanOutput } from '../../shared/clean-output.js';
import { randomBytes } from 'node:crypto';

/**
 * Where the shell ended up, printed last by an EXIT trap (so `exit` inside the command still
 * reports it) behind a marker no command can guess, then cut from the output.
 */
function withCwdReport(script: string): { script: string; marker: string } {
  const marker = `__HERMES_CWD_${randomBytes(8).toString('hex')}__`;
  return { script: `trap 'printf "\\n${marker}%s\\n" "$PWD"' EXIT\n${script}`, marker };
}

/** The output without the cwd report, and the folder it named (the last report wins). */
function takeCwdReport(output: string, marker: string): { output: string; cwd?: string } {
  const at = output.lastIndexOf(`\n${marker}`);
  if (at === -1) return { output };
  const end = output.indexOf('\n', at + 1 + marker.length);
  const cwd = output.slice(at + 1 + marker.length, end === -1 ? undefined : end);
  return { output: output.slice(0, at) + (end === -1 ? '' : output.slice(end + 1)), cwd: cwd || undefined };
}

/*
 * Not strict on purpose: scripts written for the reference pass `background`, `pty` and
 * the like; they are dropped silently and the command runs in the foreground.
 */
const args = z.object({
  command: z.string().min(1).describe('Shell command (bash) to run in the foreground'),
  timeout: z.number().positive().nullable().default(null).describe('Seconds before the command is killed; default terminal.timeout, at most terminal.max_timeout'),
  workdir: z.string().min(1).nullable().default(null).describe('Folder to run in; default the working folder'),
});

/** A folder for `cd`, quoted, with `~` left for the shell to expand. */
function shellPath(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${shellQuote(path.slice(2))}`;
  return shellQuote(path);
}

/** A clear error for a call meant for execute_code (`code` is its argument), instead of "command: required". */
function strayCode(raw: Record<string, unknown>, enabled?: readonly string[]): string | undefined {
  if (raw.command !== undefined || typeof raw.code !== 'string') return undefined;
  const hint = !enabled || enabled.includes('execute_code') ? ' did you mean execute_code? Call execute_code with {"code": ...} for Python, or' : '';
  return `terminal runs a shell command given in "command", but was called with "code":${hint} pass the shell command as {"command": ...}.`;
}

/** `terminal(command, timeout=None, workdir=None)`: one foreground command in its own process group. */
export function terminalTool(): Tool {
  const tool = defineTool({
    name: 'terminal',
    prepare: (raw, ctx) => {
      const stray = strayCode(raw, ctx.enabledTools);
      return stray ? { error: stray } : raw;
    },
    description:
      'Run a shell command in the foreground and return output (stdout and stderr merged, capped: head and tail kept) ' +
      'and exit_code. A timeout kills the command and everything it started.',
    args,
    async run({ command, timeout, workdir }, ctx) {
      if (command.trim() === '') return { error: 'terminal: command is empty' };
      const verdict = await checkCommand(command, ctx);
      if (!verdict.allowed) return { error: verdict.error };
      // `cd` inside the shell, not a spawn cwd: a missing folder then gets the shell's own clear message.
      const plain = workdir ? `cd -- ${shellPath(workdir)} || exit 1\n${command}` : command;
      // As in hermes-agent, a `cd` (without workdir) carries over: where the shell ended is where the
      // next command and execute_code start, on backends that can follow it (Environment.followCwd).
      const follow = !workdir && ctx.environment.followCwd ? withCwdReport(plain) : undefined;
      // A model-given timeout never outlasts the configured maximum.
      const result = await ctx.environment.execute(follow?.script ?? plain, {
        timeout: Math.min(timeout ?? ctx.config.terminal.timeout, ctx.config.terminal.max_timeout),
        signal: ctx.signal,
      });
      if (follow) {
        const report = takeCwdReport(result.output, follow.marker);
        result.output = report.output;
        if (report.cwd) ctx.environment.followCwd?.(report.cwd);
      }
      // What the model or the script sees: no ANSI escape sequences, credentials masked.
      const output = cleanOutput(capHeadTail(result.output, ctx.config.terminal.max_output_bytes).text, {
        redact: ctx.config.code_execution.redact_secrets,
      });
      return { output, exit_code: result.exit_code };
    },
  });
  return tool;
}
