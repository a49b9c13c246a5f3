import { describe, expect, it } from 'vitest';
import { findExecutable } from '../../src/environments/index.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { harness, registryOf, echoTool, type Harness } from './harness.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';

/*
 * The events the gateway streams from: the model's text as it arrives (`text_delta`, then the
 * `text` that ends it) and a running script's lines (`tool_output`) before its result.
 */
const hasPython = findExecutable('python3') !== undefined;

let h: Harness;
const keep = releaseAfterEach();

describe('streamed model replies', () => {
  it('a streamed answer arrives as text_delta pieces that add up to the final text', async () => {
    h = keep(await harness({ stream: true }), (made) => made.cleanup());
    const answer = 'Here is a longer answer that the fake server cuts into many small pieces.';
    h.fake.enqueue({ text: answer });
    const events: AgentEvent[] = [];
    const result = await h.agent({ registry: registryOf(echoTool()), config: { model: { stream: true } } }).runTurn({
      sessionKey: 't:deltas',
      text: 'talk',
      onEvent: (event) => events.push(event),
    });
    expect(result.text).toBe(answer);
    const deltas = events.filter((event) => event.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((event) => (event.type === 'text_delta' ? event.delta : '')).join('')).toBe(answer);
    // The final text event comes after the last piece.
    expect(events.at(-1)).toEqual({ type: 'text', text: answer, final: true });
  });

  it('a request retried after a failure says restart before its new pieces', async () => {
    h = keep(await harness({ stream: true }), (made) => made.cleanup());
    h.fake.enqueue({ status: 503, message: 'busy' }, { text: 'second try' });
    const events: AgentEvent[] = [];
    const agent = h.agent({ config: { model: { stream: true, max_retries: 1 } } });
    await agent.runTurn({ sessionKey: 't:retry', text: 'go', onEvent: (event) => events.push(event) });
    const deltas = events.filter((event) => event.type === 'text_delta');
    // Nothing streamed before the 503, so no restart is needed; the pieces are the second reply's.
    expect(deltas.some((event) => event.type === 'text_delta' && event.restart)).toBe(false);
    expect(deltas.map((event) => (event.type === 'text_delta' ? event.delta : '')).join('')).toBe('second try');
  });

  it('a non-streamed reply sends no pieces', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    h.fake.enqueue({ text: 'whole' });
    const events: AgentEvent[] = [];
    await h.agent().runTurn({ sessionKey: 't:whole', text: 'go', onEvent: (event) => events.push(event) });
    expect(events.map((event) => event.type)).toEqual(['text']);
  });
});

describe.runIf(hasPython || process.env.CI === 'true')('a running script, live', () => {
  it('its lines arrive as tool_output while it runs, cleaned like its result, before tool_finished', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    const script = [
      'import sys, time',
      'print("\\x1b[31mfirst line\\x1b[0m", flush=True)',
      'time.sleep(0.3)',
      'print("token ghp_" + "a" * 36, flush=True)',
      'time.sleep(0.3)',
      'print("last line", flush=True)',
    ].join('\n');
    h.fake.enqueue({ toolCalls: [{ name: 'execute_code', arguments: { code: script } }] }, { text: 'done' });
    const agent = await h.realAgent();
    const events: Array<AgentEvent & { at: number }> = [];
    await agent.runTurn({ sessionKey: 't:live', text: 'run', onEvent: (event) => events.push({ ...event, at: events.length }) });
    const outputs = events.filter((event) => event.type === 'tool_output');
    const finished = events.find((event) => event.type === 'tool_finished');
    expect(outputs.length).toBeGreaterThanOrEqual(2);
    expect(outputs.every((event) => event.at < finished!.at)).toBe(true);
    const live = outputs.map((event) => (event.type === 'tool_output' ? event.text : '')).join('');
    expect(live).not.toContain('\x1b[');
    expect(live).not.toContain('a'.repeat(36));
    expect(live.split('\n').filter(Boolean)).toEqual(['first line', expect.stringMatching(/^token /), 'last line']);
  });
});
