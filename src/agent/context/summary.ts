import type { ChatMessage } from '../../sessions/index.js';
import type { ModelClient, ModelUsage } from '../model-client.js';
import { SUMMARY_MARKER } from '../../shared/notices.js';
import { contentText, isSummary, toolNamesById } from './turns.js';
import { textTokens } from './tokens.js';

/** The summariser's instructions: what the agent needs to go on. */
export const SUMMARY_SYSTEM_PROMPT =
  'You compress the earlier part of a conversation between a person and an AI agent that runs Python scripts in a ' +
  'persistent session kernel (variables set by earlier scripts still exist there). Write a summary the agent can ' +
  'continue from: what the person asked for and still wants, decisions and answers given, facts and numbers learned, ' +
  'files and paths, the kernel variables scripts defined and what they hold, and what is still open. Plain text, ' +
  'short sentences or bullet points, no preamble. Never invent anything that is not in the transcript.';

/** Characters of one message kept in the transcript the summariser reads. */
const PER_MESSAGE_CHARS = 1200;
const PER_TOOL_OUTPUT_CHARS = 600;

function clip(text: string, max: number): string {
  const flat = text.trim();
  return flat.length > max ? `${flat.slice(0, max)}… [${flat.length - max} more characters]` : flat;
}

/** The part of the view to summarise as a plain transcript, and the earlier summary it carries. */
export function transcriptOf(region: readonly ChatMessage[]): { previous?: string; lines: string[] } {
  const names = toolNamesById(region);
  let previous: string | undefined;
  const lines: string[] = [];
  for (const message of region) {
    if (isSummary(message)) {
      previous = contentText(message).replace(/^\[[^\]]*\]\s*/, '');
      continue;
    }
    if (message.role === 'user') lines.push(`Person: ${clip(contentText(message), PER_MESSAGE_CHARS)}`);
    else if (message.role === 'assistant') {
      const text = contentText(message);
      if (text.trim() && !(previous !== undefined && lines.length === 0 && text.startsWith('Understood'))) lines.push(`Agent: ${clip(text, PER_MESSAGE_CHARS)}`);
      for (const call of message.tool_calls ?? []) {
        if (call.type === 'function') lines.push(`Agent called ${call.function.name}: ${clip(call.function.arguments, PER_MESSAGE_CHARS)}`);
      }
    } else if (message.role === 'tool') {
      lines.push(`Result of ${names.get(message.tool_call_id) ?? 'a tool'}: ${clip(contentText(message), PER_TOOL_OUTPUT_CHARS)}`);
    }
  }
  return { previous, lines };
}

export interface SummaryRequest {
  client: ModelClient;
  model: string;
  region: readonly ChatMessage[];
  /** Tokens the summariser's request may take, all told. */
  inputBudget: number;
  /** Tokens the summary may take. */
  maxTokens: number;
  signal: AbortSignal;
}

export interface SummaryResult {
  text: string;
  usage?: ModelUsage;
  /** The request's size counted here, for when the API reports no usage. */
  promptTokens: number;
}

/**
 * One model call that summarises `region`. The transcript is cut to the budget from its
 * oldest end (the earlier summary is always kept). Throws what the model client throws.
 */
export async function summarise(request: SummaryRequest): Promise<SummaryResult> {
  const { previous, lines } = transcriptOf(request.region);
  const head = previous ? `Summary of what came before:\n${previous}\n\n` : '';
  let budget = request.inputBudget - textTokens(SUMMARY_SYSTEM_PROMPT) - textTokens(head) - 100;
  const kept: string[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const cost = textTokens(lines[i]) + 2;
    if (cost > budget) {
      kept.unshift(`[${i + 1} earlier line${i === 0 ? '' : 's'} of the transcript left out]`);
      break;
    }
    budget -= cost;
    kept.unshift(lines[i]);
  }
  const user = `${head}Conversation to summarise:\n${kept.join('\n')}`;
  const messages: ChatMessage[] = [
    { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
    { role: 'user', content: user },
  ];
  const reply = await request.client.complete({ messages, tools: [], signal: request.signal, model: request.model, maxTokens: request.maxTokens });
  const text = reply.content?.trim() ?? '';
  if (!text) throw new Error('the summary call returned no text');
  return { text, ...(reply.usage ? { usage: reply.usage } : {}), promptTokens: textTokens(SUMMARY_SYSTEM_PROMPT) + textTokens(user) + 8 };
}

/** The two messages that stand for summarised turns: the summary, and the agent taking it in (roles keep alternating). */
export function summaryMessages(text: string, turns: number): ChatMessage[] {
  return [
    {
      role: 'user',
      content: `${SUMMARY_MARKER} (${turns} turn${turns === 1 ? '' : 's'} summarised to save context; state.db keeps them whole)]\n\n${text}`,
    },
    { role: 'assistant', content: 'Understood. I will continue from this summary; variables that earlier scripts set are still in the session kernel.' },
  ];
}
