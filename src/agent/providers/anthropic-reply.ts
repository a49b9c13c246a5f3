import { z } from 'zod';
import type { ModelReply, ModelUsage, ToolCallRequest } from '../model-client.js';
import { thinkingBlockSchema, type ThinkingBlock } from './thinking.js';

/*
 * A Messages API reply, streamed (message_start, content_block_start/delta/stop,
 * message_delta, message_stop) or whole, read into the loop's reply. What arrives is read
 * with these shapes, not trusted as the SDK's types: an event of another shape is skipped.
 */

const usageShape = z.object({
  input_tokens: z.number().nullish().catch(undefined),
  output_tokens: z.number().nullish().catch(undefined),
  cache_creation_input_tokens: z.number().nullish().catch(undefined),
  cache_read_input_tokens: z.number().nullish().catch(undefined),
});
type UsageFields = z.infer<typeof usageShape>;

const blockShape = z.union([
  z.object({ type: z.literal('text'), text: z.string().catch('') }),
  z.object({ type: z.literal('tool_use'), id: z.string().catch(''), name: z.string().catch(''), input: z.unknown() }),
  thinkingBlockSchema,
  z.object({ type: z.string() }),
]);

const eventShape = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: z.object({ usage: usageShape.optional().catch(undefined) }) }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: blockShape }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number(),
    delta: z.union([
      z.object({ type: z.literal('text_delta'), text: z.string() }),
      z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
      z.object({ type: z.literal('thinking_delta'), thinking: z.string() }),
      z.object({ type: z.literal('signature_delta'), signature: z.string() }),
      z.object({ type: z.string() }),
    ]),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish().catch(undefined) }).catch({}),
    usage: usageShape.optional().catch(undefined),
  }),
  z.object({ type: z.literal('message_stop') }),
]);

const messageShape = z.object({
  content: z.array(z.unknown()).catch([]),
  stop_reason: z.string().nullish().catch(undefined),
  usage: usageShape.optional().catch(undefined),
});

/** Anthropic's stop reasons as the loop's finish reasons (Chat Completions' words). */
export function finishReasonOf(stop: string | null | undefined): string | null {
  switch (stop) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return stop ?? null;
  }
}

/** The usage as the loop counts it: prompt tokens are all input, cached or not, as OpenAI counts them. */
function usageOf(fields: UsageFields): ModelUsage | undefined {
  if (fields.input_tokens == null && fields.output_tokens == null) return undefined;
  const read = fields.cache_read_input_tokens ?? 0;
  const written = fields.cache_creation_input_tokens ?? 0;
  return {
    promptTokens: (fields.input_tokens ?? 0) + read + written,
    completionTokens: fields.output_tokens ?? 0,
    ...(read ? { cacheReadTokens: read } : {}),
    ...(written ? { cacheWriteTokens: written } : {}),
  };
}

type Block =
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; name: string; json: string; input: unknown }
  | { kind: 'thinking'; block: ThinkingBlock }
  | { kind: 'other' };

function startBlock(raw: unknown): Block {
  const block = blockShape.safeParse(raw);
  if (!block.success) return { kind: 'other' };
  const value = block.data;
  if (value.type === 'text' && 'text' in value) return { kind: 'text', text: value.text };
  if (value.type === 'tool_use' && 'id' in value && 'name' in value) return { kind: 'tool', id: value.id, name: value.name, json: '', input: 'input' in value ? value.input : undefined };
  const thinking = thinkingBlockSchema.safeParse(raw);
  if (thinking.success) return { kind: 'thinking', block: thinking.data };
  // A streamed thinking block starts without its signature.
  if (value.type === 'thinking') return { kind: 'thinking', block: { type: 'thinking', thinking: '', signature: '' } };
  return { kind: 'other' };
}

/** The blocks, in order, as the loop's reply. */
function replyOf(blocks: readonly Block[], stop: string | null | undefined, usage: ModelUsage | undefined): ModelReply {
  let content = '';
  const toolCalls: ToolCallRequest[] = [];
  const thinking: ThinkingBlock[] = [];
  for (const block of blocks) {
    if (block.kind === 'text') content += block.text;
    else if (block.kind === 'thinking') thinking.push(block.block);
    else if (block.kind === 'tool') {
      // Streamed: the input arrives as JSON text; whole: as an object.
      const args = block.json || (block.input && typeof block.input === 'object' && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '');
      toolCalls.push({ id: block.id, name: block.name, arguments: args, ...(block.name ? {} : { problem: `Invalid tool call ${block.id}: it names no tool.` }) });
    }
  }
  return {
    content: content.length > 0 ? content : null,
    toolCalls,
    finishReason: finishReasonOf(stop),
    ...(usage ? { usage } : {}),
    ...(thinking.length > 0 ? { thinking } : {}),
  };
}

/** A streamed reply's events into the reply; text deltas are told as they come. */
export async function collectAnthropicStream(events: AsyncIterable<unknown>, onTextDelta?: (delta: string) => void): Promise<{ reply: ModelReply; events: number }> {
  const blocks: Block[] = [];
  let count = 0;
  let stop: string | null | undefined;
  const fields: UsageFields = {};
  const addUsage = (usage: UsageFields | undefined) => {
    if (!usage) return;
    for (const key of ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
      const value = usage[key];
      if (value != null) fields[key] = value;
    }
  };
  for await (const raw of events) {
    count++;
    const event = eventShape.safeParse(raw);
    if (!event.success) continue;
    const value = event.data;
    switch (value.type) {
      case 'message_start':
        addUsage(value.message.usage);
        break;
      case 'content_block_start':
        blocks[value.index] = startBlock(value.content_block);
        break;
      case 'content_block_delta': {
        const block = blocks[value.index];
        const delta = value.delta;
        if (!block) break;
        if (block.kind === 'text' && 'text' in delta) {
          block.text += delta.text;
          if (delta.text) onTextDelta?.(delta.text);
        } else if (block.kind === 'tool' && 'partial_json' in delta) {
          block.json += delta.partial_json;
        } else if (block.kind === 'thinking' && block.block.type === 'thinking') {
          if ('thinking' in delta) block.block.thinking += delta.thinking;
          if ('signature' in delta) block.block.signature += delta.signature;
        }
        break;
      }
      case 'message_delta':
        if (value.delta.stop_reason) stop = value.delta.stop_reason;
        addUsage(value.usage);
        break;
      default:
        break;
    }
  }
  return { reply: replyOf(blocks.filter(Boolean), stop, usageOf(fields)), events: count };
}

/** A whole (not streamed) reply as the loop's reply. */
export function anthropicReply(raw: unknown): ModelReply {
  const message = messageShape.safeParse(raw);
  if (!message.success) throw new Error('the Anthropic API answered without a message');
  const blocks = message.data.content.map(startBlock);
  return replyOf(blocks, message.data.stop_reason, message.data.usage ? usageOf(message.data.usage) : undefined);
}
