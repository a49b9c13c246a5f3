import { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import type { ChatMessage } from './types.js';

// What the Chat Completions API would reject, as schemas: each error names the problem for the log line.
const anyContent = z.union([z.string(), z.array(z.unknown()), z.null()], { error: 'content is neither text nor a list of parts' }).optional();
const contentFor = (role: string) =>
  z.union([z.string(), z.array(z.unknown())], {
    error: (issue) => (issue.input === null || issue.input === undefined ? `${role} message without content` : 'content is neither text nor a list of parts'),
  });
// Every part of a tool call says the same: the call list as a whole is what the API refuses.
const malformed = { error: 'malformed tool_calls' };
const toolCall = z.object({ id: z.string(malformed), function: z.object({ name: z.string(malformed), arguments: z.string(malformed) }, malformed) }, malformed);

const byRole = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: contentFor('system') }),
  z.object({ role: z.literal('user'), content: contentFor('user') }),
  z.object({ role: z.literal('developer'), content: anyContent }),
  z.object({ role: z.literal('assistant'), content: anyContent, tool_calls: z.array(toolCall, malformed).optional() }),
  z.object({ role: z.literal('tool'), content: anyContent, tool_call_id: z.string({ error: 'tool message without tool_call_id' }) }),
]);

/** A stored message: first an object with a known role (loose, so the role's schema sees every field). */
const storedMessage = z
  .looseObject(
    { role: z.enum(['system', 'developer', 'user', 'assistant', 'tool'], { error: (issue) => `unknown role ${JSON.stringify(issue.input)}` }) },
    { error: 'not a JSON object' },
  )
  .pipe(byRole);

/** Why a stored message cannot be sent to the model, or undefined when it can. */
export function messageProblem(value: unknown): string | undefined {
  const parsed = storedMessage.safeParse(value);
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? 'not a message');
}

/** Narrowing form of {@link messageProblem} (the value itself, not zod's copy, so no field is dropped). */
export function isChatMessage(value: unknown): value is ChatMessage {
  return storedMessage.safeParse(value).success;
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
