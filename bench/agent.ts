/*
 * The agent's own time per turn as a session's history grows: 10, 100 and 1,000 turns in
 * state.db, each a tool call that returns about 2 KB and an answer, against an 8,000-token
 * window (so compaction keeps what the model sees bounded). The model is an in-process client
 * and the tool answers at once: what is left is the agent's own work (state.db, sizes,
 * compaction, building the request). Baseline: the 10-turn session, in the same run. Beside it,
 * what reading the whole history each turn costs (the agent before compaction did that), and
 * what the summary calls cost in tokens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { repairHistory } from '../src/agent/history.js';
import type { ModelClient, ModelReply, ModelRequest } from '../src/agent/model-client.js';
import { SUMMARY_SYSTEM_PROMPT } from '../src/agent/context/summary.js';
import { ContextWindows } from '../src/agent/context/window.js';
import { loadTokenizer, textTokens } from '../src/agent/context/tokens.js';
import { hermesPaths, validateConfig } from '../src/config/index.js';
import { SessionStore } from '../src/sessions/index.js';
import { silentLogger } from '../src/shared/index.js';
import { defineTool, ToolRegistry } from '../src/tools/index.js';
import { fmt, median } from './stats.js';

const SIZES = [10, 100, 1000];
const MEASURED = 30;
const WINDOW = 8000;
/** Dollars per million tokens for the cost line (a small hosted model's prices). */
const PRICE = { input: 0.15, output: 0.6 };

interface Counters {
  modelMs: number;
  toolMs: number;
  summaryCalls: number;
  summaryPrompt: number;
  summaryCompletion: number;
}

/** A model in this process: a tool call per user message, an answer after its result, a short summary when asked. */
function inProcessModel(counters: Counters): ModelClient {
  let call = 0;
  return {
    model: 'bench-model',
    async complete(request: ModelRequest): Promise<ModelReply> {
      const started = performance.now();
      try {
        const prompt = request.messages.reduce((sum, m) => sum + 4 + textTokens(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')), 0);
        if (request.messages[0]?.content === SUMMARY_SYSTEM_PROMPT) {
          const text = 'The person asked for numbered reports; each turn fetched one and the agent confirmed it.';
          counters.summaryCalls++;
          counters.summaryPrompt += prompt;
          counters.summaryCompletion += textTokens(text);
          return { content: text, toolCalls: [], finishReason: 'stop', usage: { promptTokens: prompt, completionTokens: textTokens(text) } };
        }
        const last = request.messages.at(-1)!;
        if (last.role === 'tool') return { content: 'Got it.', toolCalls: [], finishReason: 'stop', usage: { promptTokens: prompt, completionTokens: 3 } };
        return {
          content: null,
          toolCalls: [{ id: `c${++call}`, name: 'report', arguments: JSON.stringify({ n: call }) }],
          finishReason: 'tool_calls',
          usage: { promptTokens: prompt, completionTokens: 12 },
        };
      } finally {
        counters.modelMs += performance.now() - started;
      }
    },
  };
}

/** A tool that answers at once with about 2 KB of numbers. */
function reportTool(counters: Counters) {
  return defineTool({
    name: 'report',
    description: 'Fetch report n',
    args: z.object({ n: z.number() }),
    async run({ n }) {
      const started = performance.now();
      const text = Array.from({ length: 400 }, (_, k) => String((n * 7 + k) % 10_000).padStart(4, '0')).join(' ');
      counters.toolMs += performance.now() - started;
      return text;
    },
  });
}

async function measure(turns: number): Promise<{ perTurnMs: number; replayMs: number; messages: number; view: { messages: number; tokens: number }; counters: Counters }> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-agent-'));
  const counters: Counters = { modelMs: 0, toolMs: 0, summaryCalls: 0, summaryPrompt: 0, summaryCompletion: 0 };
  try {
    const paths = hermesPaths(home);
    const config = validateConfig({ model: { name: 'bench-model', context_window: WINDOW }, terminal: { cwd: home }, agent: { tools: { enabled: ['report'] } } }, 'bench').config;
    const logger = silentLogger();
    const agent = new Agent({
      config,
      paths,
      logger,
      registry: new ToolRegistry([reportTool(counters)]),
      modelClient: inProcessModel(counters),
      contextWindows: new ContextWindows({ model: config.model, logger, listModels: async () => ({ ids: [], windows: new Map() }) }),
    });
    for (let i = 0; i < turns; i++) await agent.runTurn({ sessionKey: 'bench', text: `report ${i}` });
    const own: number[] = [];
    for (let i = 0; i < MEASURED; i++) {
      const model = counters.modelMs;
      const tool = counters.toolMs;
      const started = performance.now();
      await agent.runTurn({ sessionKey: 'bench', text: `report again ${i}` });
      own.push(performance.now() - started - (counters.modelMs - model) - (counters.toolMs - tool));
    }
    await agent.close();
    // What a turn paid before compaction: reading and repairing the whole history.
    const store = SessionStore.open(paths.stateDb, { logger });
    const session = store.current('bench')!;
    const replays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      repairHistory(store.messages(session.id));
      replays.push(performance.now() - started);
    }
    const messages = store.messageCount(session.id);
    const rows = store.context(session.id);
    const view = { messages: rows.length, tokens: rows.reduce((sum, row) => sum + row.tokens, 0) };
    store.close();
    return {
      perTurnMs: median(own),
      replayMs: median(replays),
      messages,
      view,
      counters,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  await loadTokenizer();
  await measure(10); // warm-up: the first session pays for the JIT
  const rows: Array<{ turns: number } & Awaited<ReturnType<typeof measure>>> = [];
  for (const turns of SIZES) rows.push({ turns, ...(await measure(turns)) });
  const base = rows[0];
  for (const row of rows) {
    console.log(
      `agent's own time per turn, ${row.turns} turns of history (${row.messages} messages in state.db; the model's view ${row.view.messages} messages, ${row.view.tokens} tokens): ` +
        `median ${fmt(row.perTurnMs)} ms, ${fmt(row.perTurnMs / base.perTurnMs)}× the 10-turn baseline; ` +
        `reading the whole history as before compaction: ${fmt(row.replayMs)} ms`,
    );
  }
  const big = rows[rows.length - 1];
  const calls = big.counters.summaryCalls;
  if (calls > 0) {
    const prompt = big.counters.summaryPrompt / calls;
    const completion = big.counters.summaryCompletion / calls;
    const dollars = (prompt * PRICE.input + completion * PRICE.output) / 1_000_000;
    console.log(
      `summary call (${WINDOW}-token window): ${calls} in ${big.turns + MEASURED} turns (one per ${fmt((big.turns + MEASURED) / calls, 1)} turns), ` +
        `${fmt(prompt, 0)} prompt + ${fmt(completion, 0)} completion tokens each, $${fmt(dollars, 6)} each at $${PRICE.input}/$${PRICE.output} per million`,
    );
  }
}
