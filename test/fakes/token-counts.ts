import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/*
 * Sizes as the real Chat Completions API counts them, for the fake model's context window:
 * each message's text and tool calls plus a few tokens, the tool schemas, images at a flat rate.
 */

/** Special-token text counts as text, as the real API counts what users send. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

export interface CountedBody {
  messages: Array<Record<string, unknown> & { role: string; content?: unknown }>;
  tools?: unknown[];
}

/** A request's prompt tokens. */
export function requestTokens(body: CountedBody): number {
  let total = 3;
  for (const message of body.messages) {
    total += 4;
    const content = message.content;
    if (typeof content === 'string') total += countTokens(content, AS_TEXT);
    else if (Array.isArray(content)) {
      for (const part of content as Array<{ type: string; text?: string }>) total += part.type === 'text' ? countTokens(part.text ?? '', AS_TEXT) : 765;
    }
    if (Array.isArray(message.tool_calls)) total += countTokens(JSON.stringify(message.tool_calls), AS_TEXT);
  }
  if (body.tools && body.tools.length > 0) total += countTokens(JSON.stringify(body.tools), AS_TEXT);
  return total;
}

/** A reply's completion tokens. */
export function replyTokens(text: string | null | undefined, calls: ReadonlyArray<{ name: string; arguments: unknown }> = []): number {
  const args = calls.map((call) => `${call.name}${typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)}`).join('');
  return countTokens((text ?? '') + args, AS_TEXT) + 1;
}

/** The real API's 400 for a request larger than the model's window, word for word in shape. */
export function contextLengthError(window: number, tokens: number) {
  return {
    error: {
      message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  };
}
