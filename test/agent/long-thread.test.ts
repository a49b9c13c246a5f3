import { afterEach, describe, expect, it } from 'vitest';
import { findExecutable } from '../../src/environments/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { SessionStore } from '../../src/sessions/index.js';
import { PRUNED_KERNEL_OUTPUT } from '../../src/shared/notices.js';
import { SUMMARY_SYSTEM_PROMPT } from '../../src/agent/context/summary.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { harness, type Harness } from './harness.js';
import type { FakeReply, RecordedRequest } from '../fakes/openai-server.js';

/*
 * A thread that works for an afternoon: 150 turns in one session against a fake model with an
 * 8,000-token window that answers the real API's context-length error to anything larger. Each
 * turn runs a real execute_code script in the session kernel that sets a variable and prints
 * about 2 KB; turn 120 reads the variable turn 20 set.
 */
const hasPython = findExecutable('python3') !== undefined;
if (!hasPython && process.env.CI !== 'true') console.log('test/agent/long-thread: python3 not found; skipping');

const WINDOW = 8000;
const TURNS = 150;

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

/** Turn n's script: set v<n>, print 400 numbers (about 2 KB). Turn 120 prints v20 instead. */
function scriptFor(turn: number): string {
  if (turn === 120) return "print('v20 =', v20)";
  return `v${turn} = 'value-${turn}'\nprint(' '.join(f'{k:04d}' for k in range(${turn}, ${turn} + 400)))`;
}

/** The model: a summary when asked for one, else a script per user turn and a short answer after its result. */
function longThreadModel(request: RecordedRequest): FakeReply {
  const messages = request.body.messages;
  if (messages[0]?.content === SUMMARY_SYSTEM_PROMPT) return { text: 'The person runs numbered turns; each script set a variable v<n> in the kernel.' };
  const last = messages[messages.length - 1];
  if (last.role === 'tool') return { text: `done with ${String(last.tool_call_id).replace('call_t', 'turn ')}` };
  const turn = Number(/^turn (\d+)/.exec(String(last.content))?.[1]);
  return { toolCalls: [{ id: `call_t${turn}`, name: 'execute_code', arguments: { code: scriptFor(turn) } }] };
}

describe.runIf(hasPython || process.env.CI === 'true')('a long thread against a small window', () => {
  it('answers 150 turns of 2 KB outputs in an 8,000-token window: compaction notices, every later request fits, state.db keeps every message, the kernel keeps the data', async () => {
    h = await harness({ contextWindow: WINDOW, listModels: ['fake-model'], fallback: { respond: longThreadModel } });
    const agent = await h.realAgent({ agent: { tools: { enabled: ['execute_code'] } } });

    const notices: Array<{ text: string; turn: number; requestsBefore: number }> = [];
    const statuses: string[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      const onEvent = (event: AgentEvent) => {
        if (event.type === 'text' && !event.final && event.text.startsWith('compacted')) {
          notices.push({ text: event.text, turn, requestsBefore: h.fake.requests.length });
        }
      };
      const result = await agent.runTurn({ sessionKey: 'long:thread', text: `turn ${turn}`, onEvent });
      statuses.push(result.status);
      expect(result.text, `turn ${turn}`).toMatch(turn === 120 ? /done with turn 120/ : new RegExp(`done with turn ${turn}$`));
    }

    expect(statuses.every((status) => status === 'completed')).toBe(true);
    expect(notices.length).toBeGreaterThanOrEqual(1);
    for (const notice of notices) expect(notice.text).toMatch(/^compacted \d+ (turns?|old tool outputs?): [\d.]+k? → [\d.]+k? tokens$/);
    expect(notices.some((notice) => / turns?: /.test(notice.text))).toBe(true);

    // Every request after the first compaction fits the window: none refused, none larger.
    const later = h.fake.requests.slice(notices[0].requestsBefore);
    expect(later.length).toBeGreaterThan(200);
    expect(later.filter((request) => request.refused)).toEqual([]);
    expect(Math.max(...later.map((request) => request.tokens ?? Number.POSITIVE_INFINITY))).toBeLessThanOrEqual(WINDOW);

    // Turn 20's output was pruned from what the model saw, and the kernel still had its data 100 turns later.
    const pruned = h.fake.requests.find((request) =>
      request.body.messages.some((m) => m.role === 'tool' && m.tool_call_id === 'call_t20' && m.content === PRUNED_KERNEL_OUTPUT),
    );
    expect(pruned).toBeDefined();
    const read = h.fake.requests.find((request) => {
      const last = request.body.messages[request.body.messages.length - 1];
      return last.role === 'tool' && last.tool_call_id === 'call_t120';
    });
    expect(String(read?.body.messages.at(-1)?.content)).toContain('v20 = value-20');
    expect(h.fake.requests.indexOf(pruned!)).toBeLessThan(h.fake.requests.indexOf(read!));

    // state.db has the whole history: every user message and every script output, verbatim.
    const store = SessionStore.open(h.paths.stateDb, { logger: silentLogger() });
    try {
      const session = store.current('long:thread')!;
      const messages = store.messages(session.id);
      const users = messages.filter((m) => m.role === 'user').map((m) => m.content);
      expect(users).toEqual(Array.from({ length: TURNS }, (_, i) => `turn ${i + 1}`));
      const outputs = messages.filter((m) => m.role === 'tool');
      expect(outputs).toHaveLength(TURNS);
      expect(outputs.every((m) => m.content !== PRUNED_KERNEL_OUTPUT)).toBe(true);
      // The view is what the model sees: much shorter, and it starts with the summary.
      const view = store.context(session.id);
      expect(view.length).toBeLessThan(messages.length / 4);
      expect(String(view[0].message.content)).toMatch(/^\[Summary of the earlier conversation \(\d+ turns summarised/);
    } finally {
      store.close();
    }
  }, 120_000);
});
