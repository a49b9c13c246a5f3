import type { Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import type { ChatMessage } from './types.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validToolCall(call: unknown): boolean {
  if (!isObject(call) || typeof call.id !== 'string' || !isObject(call.function)) return false;
  return typeof call.function.name === 'string' && typeof call.function.arguments === 'string';
}

/**
 * Why a stored message cannot be sent to the model, or undefined when it can.
 * The check is structural: what the Chat Completions API would reject.
 */
export function messageProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not a JSON object';
  if (typeof value.role !== 'string' || !ROLES.has(value.role)) return `unknown role ${JSON.stringify(value.role)}`;
  const content = value.content;
  const contentOk = typeof content === 'string' || Array.isArray(content) || content === null || content === undefined;
  if (!contentOk) return 'content is neither text nor a list of parts';
  if (value.role === 'tool' && typeof value.tool_call_id !== 'string') return 'tool message without tool_call_id';
  if (value.role === 'assistant' && value.tool_calls !== undefined) {
    if (!Array.isArray(value.tool_calls) || !value.tool_calls.every(validToolCall)) return 'malformed tool_calls';
  }
  if ((value.role === 'user' || value.role === 'system') && typeof content !== 'string' && !Array.isArray(content)) {
    return `${value.role} message without content`;
  }
  return undefined;
}

/** Narrowing form of {@link messageProblem}. */
export function isChatMessage(value: unknown): value is ChatMessage {
  return messageProblem(value) === undefined;
}

/** A stored message's JSON read back: the message, or why it cannot be sent to the model. */
function readStoredMessage(text: string): { message: ChatMessage; problem?: undefined } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `invalid JSON (${errorMessage(error)})` };
  }
  if (isChatMessage(value)) return { message: value };
  return { problem: messageProblem(value) ?? 'not a message' };
}

/**
 * The rows of `table` (messages or context) of one session whose `message` column reads back
 * as a message, each with it; a row that does not is skipped with a log line naming it.
 */
export function readableMessageRows<R extends { seq: number; message: string }>(
  rows: readonly R[],
  context: { logger: Logger; sessionId: string; table: 'message' | 'context' },
): Array<{ row: R; message: ChatMessage }> {
  const out: Array<{ row: R; message: ChatMessage }> = [];
  for (const row of rows) {
    const read = readStoredMessage(row.message);
    if (read.problem !== undefined) {
      context.logger.warn({ session: context.sessionId, row: row.seq }, `state.db: skipped corrupt ${context.table} row ${row.seq}: ${read.problem}`);
      continue;
    }
    out.push({ row, message: read.message });
  }
  return out;
}
