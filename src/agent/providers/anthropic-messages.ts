import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { AssistantMessageParam, ContentBlockParam, ImageBlockParam, TextBlockParam, Tool, ToolResultBlockParam, UserMessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { ChatMessage } from '../../sessions/index.js';
import { thinkingOf } from './thinking.js';

/*
 * The history (Chat Completions JSON, as state.db keeps it) as Anthropic's Messages API takes
 * it: system text apart, tool calls as `tool_use` blocks in the assistant turn (after its
 * thinking blocks), tool results as `tool_result` blocks of the next user turn, image parts
 * as image blocks, and turns of one role merged (the API wants them alternating).
 */

/** A turn of the conversation (system text goes in the request's own `system`). */
export type Turn = UserMessageParam | AssistantMessageParam;

export interface AnthropicPrompt {
  system: TextBlockParam[];
  messages: Turn[];
}

const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type MediaType = (typeof MEDIA_TYPES)[number];

/** A `data:` URL as a base64 image block; any other URL as a URL image. */
function imageBlock(url: string): ImageBlockParam | TextBlockParam {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!data) return /^https?:/i.test(url) ? { type: 'image', source: { type: 'url', url } } : { type: 'text', text: '[an image that could not be sent]' };
  const media = MEDIA_TYPES.find((type): type is MediaType => type === data[1].toLowerCase());
  if (!media) return { type: 'text', text: `[an image of type ${data[1]} that could not be sent]` };
  return { type: 'image', source: { type: 'base64', media_type: media, data: data[2] } };
}

/** What a message's content says as text, parts joined. */
function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).filter(Boolean).join('\n');
}

function userBlocks(content: ChatMessage['content']): ContentBlockParam[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  const blocks: ContentBlockParam[] = [];
  for (const part of content) {
    if (part.type === 'text' && part.text) blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'image_url') blocks.push(imageBlock(part.image_url.url));
  }
  return blocks;
}

/** A tool call's arguments as the object `tool_use.input` must be; what does not parse to one is sent as `{}` (its result says what was wrong). */
function toolInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = text.trim() ? JSON.parse(text) : {};
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
  } catch {
    return {};
  }
}

function assistantBlocks(message: ChatMessage & { role: 'assistant' }): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [...thinkingOf(message)];
  const text = textOf(message.content ?? null);
  if (text.trim()) blocks.push({ type: 'text', text });
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
  }
  return blocks;
}

/** Adds a turn, merged into the previous one when it has the same role. */
function push(messages: Turn[], role: 'user' | 'assistant', blocks: ContentBlockParam[]): void {
  if (blocks.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === role) {
    const before: ContentBlockParam[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    // Tool results lead their user turn, as the API asks.
    const merged = role === 'user' ? [...before.filter(isToolResult), ...blocks.filter(isToolResult), ...before.filter((b) => !isToolResult(b)), ...blocks.filter((b) => !isToolResult(b))] : [...before, ...blocks];
    messages[messages.length - 1] = { role, content: merged };
    return;
  }
  messages.push({ role, content: blocks });
}

function isToolResult(block: ContentBlockParam): block is ToolResultBlockParam {
  return block.type === 'tool_result';
}

/** The history as a Messages API request's `system` and `messages`. */
export function anthropicPrompt(history: readonly ChatMessage[]): AnthropicPrompt {
  const system: TextBlockParam[] = [];
  const messages: Turn[] = [];
  for (const message of history) {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content);
        if (text) system.push({ type: 'text', text });
        break;
      }
      case 'user':
        push(messages, 'user', userBlocks(message.content));
        break;
      case 'assistant': {
        const blocks = assistantBlocks(message);
        // An empty assistant turn is refused by the API; it still takes the turn's place.
        push(messages, 'assistant', blocks.length > 0 ? blocks : [{ type: 'text', text: '(no reply)' }]);
        break;
      }
      case 'tool':
        push(messages, 'user', [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: textOf(message.content) || '(no output)' }]);
        break;
      default:
        break;
    }
  }
  // The API wants the conversation to start with the person.
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: [{ type: 'text', text: '(conversation continues)' }] });
  return { system, messages };
}

/** Chat Completions tool definitions as Anthropic's. */
export function anthropicTools(tools: readonly ChatCompletionTool[]): Tool[] {
  const out: Tool[] = [];
  for (const tool of tools) {
    if (tool.type !== 'function') continue;
    const parameters = tool.function.parameters ?? {};
    out.push({
      name: tool.function.name,
      ...(tool.function.description ? { description: tool.function.description } : {}),
      input_schema: { ...parameters, type: 'object' },
    });
  }
  return out;
}

/** Most breakpoints a request may have (the API refuses a fifth). */
export const MAX_CACHE_BREAKPOINTS = 4;

/**
 * Marks the prompt for caching: the system prompt's last block (the cached prefix is tools,
 * then system, so it holds the tool definitions too) and the last block of each of the
 * latest three turns, so the next request reads all but its newest part from the cache.
 */
export function withCacheControl(prompt: AnthropicPrompt): AnthropicPrompt {
  const mark = { type: 'ephemeral' as const };
  let left = MAX_CACHE_BREAKPOINTS;
  const system = prompt.system.map((block, i) => (i === prompt.system.length - 1 ? { ...block, cache_control: mark } : block));
  if (system.length > 0) left--;
  const messages = [...prompt.messages];
  for (let i = messages.length - 1; i >= 0 && left > 0; i--) {
    const content = messages[i].content;
    if (typeof content === 'string' || content.length === 0) continue;
    const lastIndex = content.length - 1;
    const last = content[lastIndex];
    // Thinking blocks cannot carry cache_control.
    if (last.type === 'thinking' || last.type === 'redacted_thinking') continue;
    messages[i] = { ...messages[i], content: content.map((block, j) => (j === lastIndex ? { ...block, cache_control: mark } : block)) };
    left--;
  }
  return { system, messages };
}
