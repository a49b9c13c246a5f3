import type { ChatMessage } from '../sessions/index.js';

/** The tool message put in place of a result that never got stored (the process stopped mid-tool). */
export function lostResultNotice(name: string): string {
  return `[Tool result lost — the gateway stopped before ${name} finished]`;
}

/**
 * Makes a stored history valid for the Chat Completions API: every assistant tool call
 * is followed by a tool message with its id (a placeholder when the result was lost),
 * and tool messages that answer no preceding call are dropped. Nothing else changes.
 */
export function repairHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let pending = new Map<string, string>();
  const flush = () => {
    for (const [id, name] of pending) out.push({ role: 'tool', tool_call_id: id, content: lostResultNotice(name) });
    pending = new Map();
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      if (pending.has(message.tool_call_id)) {
        pending.delete(message.tool_call_id);
        out.push(message);
      }
      continue;
    }
    flush();
    out.push(message);
    if (message.role === 'assistant' && message.tool_calls) {
      for (const call of message.tool_calls) {
        pending.set(call.id, call.type === 'function' ? call.function.name : 'the tool');
      }
    }
  }
  flush();
  return out;
}
