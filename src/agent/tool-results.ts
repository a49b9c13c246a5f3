/** The text of a tool result as the model reads it: strings as they are, anything else as JSON. */
export function toolResultText(result: unknown): string {
  if (typeof result === 'string') return result;
  if (result === undefined) return 'null';
  try {
    return JSON.stringify(result) ?? String(result);
  } catch {
    return String(result);
  }
}

/**
 * Cuts a result longer than `max` characters, keeping the head (40 %) and the tail (60 %)
 * with a note between them that says how much was left out.
 */
export function capToolResult(text: string, max: number): string {
  if (text.length <= max) return text;
  const omitted = text.length - max;
  const note =
    `\n\n[… ${omitted} of ${text.length} characters cut here (agent.tool_result_max_chars = ${max}). ` +
    'Ask for less: filter, paginate, or process the output in execute_code and print only what matters. …]\n\n';
  const head = Math.floor(max * 0.4);
  return text.slice(0, head) + note + text.slice(text.length - (max - head));
}

/** The tool message for a call that the interrupt stopped before it began. */
export function skippedNotice(name: string, reason: string): string {
  return `[Tool execution skipped — ${name} was not started. ${reason}]`;
}

/** The system note the next user message carries after an interrupted turn. */
export function interruptedNote(reason: string): string {
  return (
    `[System note: your previous turn was interrupted (${reason}) before it finished. ` +
    'Its partial work is in the history above; unfinished tool calls were stopped or skipped.]'
  );
}
