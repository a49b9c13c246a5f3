import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ChatMessage } from '../sessions/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';
import type { Logger } from '../shared/logger.js';
import type { AgentEvent, TurnResult } from './types.js';
import type { ModelClient, ModelUsage, ToolCallRequest } from './model-client.js';
import { ContextLengthError, ModelAbortedError, ModelError } from './model-errors.js';
import type { Conversation } from './context/conversation.js';
import type { CompactMode, CompactOutcome } from './context/compactor.js';
import { textTokens } from './context/tokens.js';
import { runToolCall } from './tool-call.js';
import { capToolResult, skippedNotice, toolResultText } from './tool-results.js';
import { abortReason, abortText, interruptedNotice } from '../shared/notices.js';
import { liveOutput } from './live-output.js';
import { withThinking } from './providers/thinking.js';

export interface LoopOptions {
  client: ModelClient;
  /** The system prompt, sent first and never stored. */
  system: string;
  /** The model's view of the session, ending with the new user message; the loop adds to it (and so to the store). */
  conversation: Conversation;
  /** Another model than `model.name` for this turn (a thread's /model). */
  model?: string;
  /** Keeps each request within the model's window; absent, requests are sent as they are. */
  compaction?: LoopCompaction;
  /** Messages the person sent while the turn runs (busy_input_mode: steer), taken at each tool-call boundary. */
  steer?: () => string[];
  /** Hears each model call's usage (absent when the API reported none) and the request's size as counted here. */
  onUsage?: (usage: ModelUsage | undefined, counted: number, completionCounted: number) => void;
  registry: ToolRegistry;
  /** The tools the model is given this turn. */
  enabled: ReadonlySet<string>;
  /** The context every tool call gets (its signal is the turn's). */
  context: ToolContext;
  maxIterations: number;
  toolResultMaxChars: number;
  logger: Logger;
  onEvent?: (event: AgentEvent) => void;
  /**
   * After an interrupt, how long a running tool may take to stop before the turn stops
   * waiting for it (default 10 s). Tools that honour the signal return well before.
   */
  abandonAfterMs?: number;
}

/** How the loop keeps requests within the window: compaction before a request, and once more after a context-length error. */
export interface LoopCompaction {
  /** Compacts the conversation for a request with `overhead` tokens of system prompt and tools. */
  compact(mode: CompactMode, overhead: number): Promise<CompactOutcome>;
  /** Learns the window from a context-length error of a request counted at `requestTokens`. */
  learn(error: ContextLengthError, requestTokens: number): void;
}

export interface LoopResult extends TurnResult {
  /** The abort reason when `status` is `interrupted`. */
  reason?: string;
}

/** Tools as the Chat Completions API takes them. */
export function toolSchemas(registry: ToolRegistry, enabled: ReadonlySet<string>): ChatCompletionTool[] {
  return registry
    .list()
    .filter((tool) => enabled.has(tool.name))
    .map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.describe?.(enabled) ?? tool.description, parameters: tool.parameters },
    }));
}

/** The message a turn ends with when it runs out of model calls. */
export function maxIterationsMessage(limit: number): string {
  return (
    `I stopped after ${limit} model calls in this turn (agent.max_iterations = ${limit}) without reaching a final ` +
    'answer. The work so far is kept: send "continue" to let me go on, or ask for a smaller step.'
  );
}

/**
 * One turn: model → tool calls → results → model, until the model answers without tool
 * calls, the iteration limit is reached, the model request fails, or the signal aborts.
 * Every assistant tool call gets a tool message, also when interrupted, so the history
 * stays valid for the API.
 */
export async function runLoop(options: LoopOptions): Promise<LoopResult> {
  const { client, conversation, context, logger } = options;
  const signal = context.signal;
  const schemas = toolSchemas(options.registry, options.enabled);
  const emit = (event: AgentEvent) => {
    try {
      options.onEvent?.(event);
    } catch (error) {
      logger.warn({ err: error }, 'an agent event handler threw; ignored');
    }
  };
  const add = (message: ChatMessage) => conversation.add(message);
  const interrupted = (): LoopResult => {
    const reason = abortText(signal);
    return { status: 'interrupted', text: `Interrupted: ${reason}.`, reason };
  };
  // What every request adds to the view; counted once per turn.
  const overhead = textTokens(options.system) + textTokens(JSON.stringify(schemas)) + 8;
  conversation.overhead = overhead;
  /** Compacts when needed; a notice goes to the chat; an outcome with no room ends the turn. */
  const compact = async (mode: CompactMode, refusal?: ContextLengthError): Promise<LoopResult | undefined> => {
    if (!options.compaction) return undefined;
    const outcome = await options.compaction.compact(mode, overhead);
    if (outcome.kind === 'compacted') emit({ type: 'text', text: outcome.notice, final: false });
    if (outcome.kind === 'no_room') return { status: 'error', text: outcome.message };
    // Refused, and nothing could be compacted: the server's own words, and the way out.
    if (outcome.kind === 'unchanged' && refusal) return { status: 'error', text: refusal.message };
    return undefined;
  };

  for (let iteration = 0; iteration < options.maxIterations; iteration++) {
    if (signal.aborted) return interrupted();
    let reply;
    let streamed = false;
    // A context-length error compacts and tries once more; a second one ends the turn.
    for (let attempt = 0; ; attempt++) {
      const counted = conversation.counted() + overhead;
      try {
        const stop = attempt === 0 ? await compact('auto') : undefined;
        if (stop) return stop;
        reply = await client.complete({
          messages: [{ role: 'system', content: options.system }, ...conversation.messages()],
          tools: schemas,
          signal,
          ...(options.model ? { model: options.model } : {}),
          onTextDelta: (delta) => {
            streamed = true;
            emit({ type: 'text_delta', delta });
          },
          onRetry: () => {
            if (streamed) emit({ type: 'text_delta', delta: '', restart: true });
            streamed = false;
          },
        });
        if (reply.usage) conversation.calibrate(reply.usage.promptTokens, counted);
        options.onUsage?.(reply.usage, conversation.estimate(overhead), replyTokens(reply.content, reply.toolCalls));
        break;
      } catch (error) {
        if (error instanceof ModelAbortedError) return interrupted();
        if (error instanceof ContextLengthError && options.compaction && attempt === 0) {
          logger.warn({ tokens: counted, limit: error.limit }, 'the model API refused the request as too long; compacting and trying once more');
          options.compaction.learn(error, Math.ceil(counted * conversation.ratio));
          try {
            const stop = await compact('retry', error);
            if (stop) return stop;
          } catch (compactError) {
            if (compactError instanceof ModelAbortedError) return interrupted();
            throw compactError;
          }
          continue;
        }
        if (error instanceof ModelError) return { status: 'error', text: error.message };
        throw error;
      }
    }
    // Every call needs its own id for its tool message; some local servers send none or repeat one.
    const seen = new Set<string>();
    const calls = reply.toolCalls.map((call, index) => {
      let id = call.id || `call_${iteration}_${index}`;
      if (seen.has(id)) id = `${id}_${index}`;
      seen.add(id);
      return { ...call, id };
    });
    if (calls.length === 0) {
      let text = reply.content?.trim() ? reply.content : '(The model returned an empty reply.)';
      if (reply.finishReason === 'length') text += '\n\n[The reply was cut off at the token limit; raise model.max_tokens or ask for a shorter answer.]';
      add(withThinking({ role: 'assistant', content: reply.content ?? '' }, reply.thinking));
      emit({ type: 'text', text, final: true });
      return { status: 'completed', text };
    }
    // Thinking blocks stay with the turn whose tool calls they led to (the Anthropic API asks for them back).
    add(withThinking({
      role: 'assistant',
      content: reply.content,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function' as const,
        // A malformed call is kept in a shape the API takes again; its tool message says what was wrong.
        function: { name: call.name || 'invalid_tool_call', arguments: call.problem && !call.arguments ? '{}' : call.arguments },
      })),
    }, reply.thinking));
    if (reply.content?.trim()) emit({ type: 'text', text: reply.content, final: false });
    await runCalls(calls, options, emit, add);
    if (signal.aborted) return interrupted();
    // Steering: what the person added meanwhile joins the turn here, between tool results and the next request.
    const steered = options.steer?.() ?? [];
    if (steered.length > 0) add({ role: 'user', content: steered.join('\n\n') });
  }
  const text = maxIterationsMessage(options.maxIterations);
  add({ role: 'assistant', content: text });
  emit({ type: 'text', text, final: true });
  return { status: 'max_iterations', text };
}

/** Tokens of a reply as counted here, for when the API reports no usage. */
function replyTokens(content: string | null, calls: readonly ToolCallRequest[]): number {
  return textTokens(content ?? '') + calls.reduce((sum, call) => sum + textTokens(call.name) + textTokens(call.arguments) + 8, 0);
}

/**
 * Runs a reply's tool calls in order. Consecutive delegate_task calls run together (the
 * delegate tool bounds how many subagents run at once). A call the interrupt reaches
 * before it starts gets the skipped notice.
 */
async function runCalls(
  calls: ToolCallRequest[],
  options: LoopOptions,
  emit: (event: AgentEvent) => void,
  add: (message: ChatMessage) => void,
): Promise<void> {
  const signal = options.context.signal;
  const runOne = async (call: ToolCallRequest): Promise<string> => {
    if (signal.aborted) return skippedNotice(call.name, abortText(signal));
    if (call.problem) {
      options.context.logger.warn({ call: call.id, problem: call.problem }, 'the model sent a malformed tool call');
      return toolResultText({ error: call.problem });
    }
    const started = Date.now();
    emit({ type: 'tool_started', callId: call.id, name: call.name, args: safeArgs(call.arguments) });
    const live = liveOutput((text) => emit({ type: 'tool_output', callId: call.id, name: call.name, text }), {
      redact: options.context.config.code_execution.redact_secrets,
    });
    const ctx: ToolContext = { ...options.context, logger: options.context.logger.child({ tool: call.name }), onOutput: live.push };
    let result: unknown;
    try {
      result = await untilAbandoned(runToolCall(call, options.registry, options.enabled, ctx), signal, options.abandonAfterMs ?? 10_000, call.name);
    } catch (error) {
      // runToolCall does not throw; this is the last guard so a turn never dies on a tool.
      result = { error: `${call.name} failed: ${(error as Error).message}` };
    }
    live.end();
    // Said as a value, so nothing downstream reads the interrupt back out of the result's text.
    const interrupted = signal.aborted ? (abortReason(signal) ?? '') : undefined;
    emit({ type: 'tool_finished', callId: call.id, name: call.name, result, durationMs: Date.now() - started, ...(interrupted === undefined ? {} : { interrupted }) });
    return capToolResult(toolResultText(result), options.toolResultMaxChars);
  };
  for (let i = 0; i < calls.length; ) {
    let j = i + 1;
    if (calls[i].name === 'delegate_task') while (j < calls.length && calls[j].name === 'delegate_task') j++;
    const group = calls.slice(i, j);
    const contents = await Promise.all(group.map(runOne));
    group.forEach((call, k) => add({ role: 'tool', tool_call_id: call.id, content: contents[k] }));
    i = j;
  }
}

/** The arguments for the tool_started event: parsed when they parse, the raw text otherwise. */
function safeArgs(raw: string): unknown {
  try {
    return raw.trim() ? JSON.parse(raw) : {};
  } catch {
    return raw;
  }
}

/**
 * The tool's own result, unless the signal aborts and the tool is still running
 * `graceMs` later: then the turn stops waiting and the model is told it was interrupted.
 */
async function untilAbandoned(
  running: Promise<{ result: unknown }>,
  signal: AbortSignal,
  graceMs: number,
  name: string,
): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<unknown>((resolve) => {
    onAbort = () => {
      timer = setTimeout(
        () => resolve(`${interruptedNotice(abortText(signal))} (${name} did not stop within ${graceMs / 1000}s; it was abandoned)`),
        graceMs,
      );
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([running.then((r) => r.result), abandoned]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
