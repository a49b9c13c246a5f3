import { interruptedNotice } from '../../src/shared/notices.js';
import type { ToolStatus } from './types.js';

/** Longest tool output or argument text the page keeps per call (the executor caps it earlier). */
export const MAX_SHOWN_CHARS = 100_000;

const OUTCOMES: readonly ToolStatus[] = ['success', 'error', 'timeout', 'interrupted'];

export interface ToolOutcome {
  status: Exclude<ToolStatus, 'running'>;
  output?: string;
  error?: string;
}

/** Cuts text to `max` characters with a note, so one huge result cannot swamp the page. */
export function clip(text: string, max = MAX_SHOWN_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… [${text.length - max} more characters not shown]`;
}

/** A tool's arguments as the page shows them: execute_code's script, or the arguments as JSON. */
export function describeArgs(name: string, args: unknown): { code?: string; args?: string } {
  const parsed = maybeJson(args);
  if (name === 'execute_code' && isRecord(parsed) && typeof parsed.code === 'string') return { code: clip(parsed.code) };
  if (parsed === undefined || (isRecord(parsed) && Object.keys(parsed).length === 0)) return {};
  return { args: clip(typeof parsed === 'string' ? parsed : JSON.stringify(parsed, null, 2)) };
}

/**
 * What a finished tool call shows. execute_code results carry `status` and `output`
 * (success, error, timeout, interrupted); other tools return data or `{ error }`.
 * `interrupted` (the agent's event says so, with the reason) makes any call's card say it.
 */
export function toolOutcome(result: unknown, interrupted?: string): ToolOutcome {
  const outcome = outcomeOf(maybeJson(result));
  if (interrupted === undefined || outcome.status === 'interrupted') return outcome;
  return { ...outcome, status: 'interrupted', error: outcome.error ?? interruptedNotice(interrupted || undefined) };
}

function outcomeOf(value: unknown): ToolOutcome {
  if (isRecord(value)) {
    const status = value.status;
    if (typeof status === 'string' && (OUTCOMES as readonly string[]).includes(status) && typeof value.output === 'string') {
      const error = typeof value.error === 'string' ? value.error : undefined;
      return {
        status: status as ToolOutcome['status'],
        output: clip(error === undefined ? value.output : withoutRepeat(value.output, error)),
        ...(error !== undefined ? { error } : {}),
      };
    }
    if (typeof value.error === 'string') return { status: 'error', error: value.error };
  }
  if (value === undefined) return { status: 'success' };
  return { status: 'success', output: clip(typeof value === 'string' ? value : JSON.stringify(value, null, 2)) };
}

/**
 * The output without its closing notice when the error says it too: the executor ends the
 * output with the notice it also gives as the error (`[execution interrupted — …]`, a timeout),
 * and the card shows the error under the output, so it would read twice.
 */
function withoutRepeat(output: string, error: string): string {
  const trimmed = output.trimEnd();
  const cut = trimmed.lastIndexOf('\n') + 1;
  const lastLine = trimmed.slice(cut).trim();
  // Only the executor's bracketed notices: a traceback's last line stays in the output.
  if (!/^\[.+\]$/.test(lastLine) || !error.includes(lastLine)) return output;
  return trimmed.slice(0, cut);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The agent may hand over arguments and results as JSON text; read them when they are. */
function maybeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return value;
  }
}
