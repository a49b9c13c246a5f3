import { z } from 'zod';
import type { ChatMessage } from '../../sessions/index.js';

/*
 * Anthropic's extended thinking: the API requires the thinking blocks of an assistant turn
 * (with their signatures, unchanged and in order) to come back with that turn while its tool
 * calls are answered. The history is stored as Chat Completions JSON, so an assistant message
 * keeps them in one extra field; the Anthropic provider sends them back, the OpenAI provider
 * leaves the field out.
 */

/** The extra field of a stored assistant message. */
export const THINKING_FIELD = 'thinking_blocks';

export const thinkingBlockSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
]);
export type ThinkingBlock = z.infer<typeof thinkingBlockSchema>;

const withBlocks = z.object({ [THINKING_FIELD]: z.array(thinkingBlockSchema) });

/** An assistant message with the reply's thinking blocks kept on it (none: the message as it is). */
export function withThinking<M extends ChatMessage & { role: 'assistant' }>(message: M, blocks: readonly ThinkingBlock[] | undefined): M {
  if (!blocks || blocks.length === 0) return message;
  return Object.assign(message, { [THINKING_FIELD]: [...blocks] });
}

/** The thinking blocks a stored message keeps; none when it keeps none or they are malformed. */
export function thinkingOf(message: ChatMessage): ThinkingBlock[] {
  if (message.role !== 'assistant') return [];
  const read = withBlocks.safeParse(message);
  return read.success ? read.data[THINKING_FIELD] : [];
}

/** The message without the field, for APIs that do not know it. */
export function withoutThinking(message: ChatMessage): ChatMessage {
  if (!(THINKING_FIELD in message)) return message;
  const copy = { ...message };
  Reflect.deleteProperty(copy, THINKING_FIELD);
  return copy;
}
