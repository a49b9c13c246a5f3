/*
 * The model providers: a 20-turn thread on the fake Anthropic Messages API with prompt caching
 * on and off (the share of input tokens read from the cache, as the fake's cache counts it
 * from the cache_control marks), and the agent's own time per turn on each provider against
 * its fake server, which answers at once: what is left is the agent, the SDK, the request's
 * conversion and the stream's reading. Baseline: the OpenAI-compatible provider, same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { loadTokenizer } from '../src/agent/context/tokens.js';
import { hermesPaths, validateConfig } from '../src/config/index.js';
import { silentLogger } from '../src/shared/index.js';
import { defineTool, ToolRegistry } from '../src/tools/index.js';
import { startFakeAnthropic, type AnthropicRecordedRequest, type FakeAnthropicReply } from '../test/fakes/anthropic-server.js';
import { startFakeOpenAI, type FakeReply, type RecordedRequest } from '../test/fakes/openai-server.js';
import { fmt, median } from './stats.js';

const TURNS = 20;

/** A tool that returns about 1 KB, so each turn adds a tool call, its result and an answer. */
function lookupTool() {
  return defineTool({
    name: 'lookup',
    description: 'Looks a topic up and returns what is known about it',
    args: z.object({ topic: z.string() }),
    async run({ topic }) {
      return { topic, text: `${topic}: `.padEnd(1000, 'facts ') };
    },
  });
}

/** Whether the request's last turn carries a tool result (then the model answers). */
const anthropicAnswers = (request: AnthropicRecordedRequest) => JSON.stringify(request.body.messages.at(-1)).includes('"tool_result"');
const openaiAnswers = (request: RecordedRequest) => request.body.messages.at(-1)?.role === 'tool';

interface Thread {
  perTurnMs: number;
  /** Input tokens the fake counted, and those read from its cache. */
  input: number;
  cacheRead: number;
}

async function thread(provider: 'anthropic' | 'openai', caching: boolean): Promise<Thread> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-models-'));
  const anthropic = await startFakeAnthropic({
    fallback: { respond: (request): FakeAnthropicReply => (anthropicAnswers(request) ? { text: 'Here is what I found.' } : { toolCalls: [{ name: 'lookup', input: { topic: 'caching' } }] }) },
  });
  const openai = await startFakeOpenAI({
    fallback: { respond: (request): FakeReply => (openaiAnswers(request) ? { text: 'Here is what I found.' } : { toolCalls: [{ name: 'lookup', arguments: { topic: 'caching' } }] }) },
  });
  try {
    const model =
      provider === 'anthropic'
        ? { provider, base_url: anthropic.url, name: 'claude-bench', api_key_env: 'ANTHROPIC_API_KEY', prompt_caching: caching, stream: true, max_retries: 0 }
        : { provider, base_url: openai.url, name: 'gpt-bench', api_key_env: 'OPENAI_API_KEY', stream: true, max_retries: 0 };
    const config = validateConfig({ model, terminal: { cwd: home } }, 'bench').config;
    const agent = new Agent({
      config,
      paths: hermesPaths(home),
      logger: silentLogger(),
      registry: new ToolRegistry([lookupTool()]),
      env: { ANTHROPIC_API_KEY: 'sk-ant-bench', OPENAI_API_KEY: 'sk-bench' },
    });
    const times: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const started = performance.now();
      await agent.runTurn({ sessionKey: 'bench', text: `turn ${i}: what do you know about caching?` });
      times.push(performance.now() - started);
    }
    await agent.close();
    const usage = anthropic.requests.map((request) => request.usage);
    const input = usage.reduce((sum, u) => sum + (u ? u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens : 0), 0);
    const cacheRead = usage.reduce((sum, u) => sum + (u?.cache_read_input_tokens ?? 0), 0);
    return { perTurnMs: median(times.slice(2)), input, cacheRead };
  } finally {
    await anthropic.close();
    await openai.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  await loadTokenizer();
  await thread('openai', false); // warm-up: the first thread pays for the JIT
  await thread('anthropic', true);
  const openai = await thread('openai', false);
  const cached = await thread('anthropic', true);
  const uncached = await thread('anthropic', false);
  const share = (t: Thread) => (t.input > 0 ? (100 * t.cacheRead) / t.input : 0);
  console.log(
    `prompt caching, a ${TURNS}-turn thread (a tool call and an answer each) on the fake Anthropic API: ` +
      `on ${fmt(share(cached), 1)}% of ${cached.input} input tokens read from the cache, off ${fmt(share(uncached), 1)}% of ${uncached.input}`,
  );
  for (const [name, row] of [
    ['openai (baseline)', openai],
    ['anthropic, caching on', cached],
    ['anthropic, caching off', uncached],
  ] as const) {
    console.log(`agent's own time per turn, ${name}: median ${fmt(row.perTurnMs)} ms, ${fmt(row.perTurnMs / openai.perTurnMs)}× the OpenAI-compatible provider`);
  }
}
