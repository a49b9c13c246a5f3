import type { ChatMessage } from '../../sessions/index.js';

/** What a cut string says in place of what it lost. */
function cutNote(length: number): string {
  return `…[${length} characters cut from this argument in later requests; state.db keeps the whole call]…`;
}

function cutString(value: string, keep: number): string {
  if (value.length <= keep) return value;
  const head = Math.floor(keep * 0.7);
  const tail = keep - head;
  return value.slice(0, head) + cutNote(value.length - keep) + value.slice(value.length - tail);
}

/** Cuts every string in `value` longer than `keep` characters. */
function cutStrings(value: unknown, keep: number): unknown {
  if (typeof value === 'string') return cutString(value, keep);
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, keep));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item, keep)]));
  }
  return value;
}

/**
 * Tool-call arguments as later requests send them: text up to `max` characters as it is;
 * longer arguments keep their shape (valid JSON) with long strings cut to head and tail.
 */
export function shortenArguments(text: string, max: number): string {
  if (text.length <= max) return text;
  try {
    const parsed: unknown = JSON.parse(text);
    for (let keep = Math.max(200, Math.floor(max / 2)); keep >= 100; keep = Math.floor(keep / 2)) {
      const shortened = JSON.stringify(cutStrings(parsed, keep));
      if (shortened.length <= max) return shortened;
    }
  } catch {
    // not JSON: cut as text below
  }
  return JSON.stringify({ shortened_arguments: cutString(text, Math.max(100, max - 200)) });
}

/** The assistant message with long tool-call arguments shortened; the same object when none is long. */
export function withShortArguments(message: ChatMessage, max: number): ChatMessage {
  if (message.role !== 'assistant' || !message.tool_calls?.some((call) => call.type === 'function' && call.function.arguments.length > max)) {
    return message;
  }
  return {
    ...message,
    tool_calls: message.tool_calls.map((call) =>
      call.type === 'function' && call.function.arguments.length > max
        ? { ...call, function: { ...call.function, arguments: shortenArguments(call.function.arguments, max) } }
        : call,
    ),
  };
}
