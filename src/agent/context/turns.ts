import type { ChatMessage } from '../../sessions/index.js';
import { SUMMARY_MARKER } from '../../shared/notices.js';

/** Whether a message is the stand-in for summarised turns. */
export function isSummary(message: ChatMessage): boolean {
  return message.role === 'user' && typeof message.content === 'string' && message.content.startsWith(SUMMARY_MARKER);
}

/**
 * Where each turn starts: the index of every user message that is not a summary. Cutting the
 * view right before one never separates a tool call from its result.
 */
export function turnStarts(messages: readonly ChatMessage[]): number[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'user' && !isSummary(message)) starts.push(index);
  });
  return starts;
}

/** The text of a message's content, images left out. */
export function contentText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => ('text' in part && typeof part.text === 'string' ? part.text : part.type === 'image_url' ? '[image]' : ''))
    .filter(Boolean)
    .join('\n');
}

/** Tool names by call id, from the assistant messages. */
export function toolNamesById(messages: readonly ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || !message.tool_calls) continue;
    for (const call of message.tool_calls) names.set(call.id, call.type === 'function' ? call.function.name : 'tool');
  }
  return names;
}
