import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/sessions/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { echoTool, harness, registryOf, toolMessages, type Harness } from './harness.js';

let h: Harness;
afterEach(async () => h?.cleanup());

describe('sessions through the agent', () => {
  it('after a restart the next message of a thread continues its history', async () => {
    h = await harness();
    h.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'echo', arguments: { message: 'hi', times: 1 } }] }, { text: 'first answer' });
    const before = h.agent({ registry: registryOf(echoTool()) });
    await before.runTurn({ sessionKey: 'slack:T:C:1', text: 'first question' });
    await before.close();

    h.fake.enqueue({ text: 'second answer' });
    const after = h.agent({ registry: registryOf(echoTool()) });
    const result = await after.runTurn({ sessionKey: 'slack:T:C:1', text: 'second question' });
    expect(result.text).toBe('second answer');
    const roles = h.fake.requests[2].body.messages.map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(h.fake.requests[2].body.messages.at(-1)).toEqual({ role: 'user', content: 'second question' });
  });

  it('/new starts an empty session for the key; the old one stays readable', async () => {
    h = await harness();
    h.fake.enqueue({ text: 'one' }, { text: 'two' });
    const agent = h.agent();
    await agent.runTurn({ sessionKey: 'web:x', text: 'remember 42' });
    const old = agent.sessionInfo('web:x')!;
    expect(old).toMatchObject({ messageCount: 2, kernel: 'none' });
    await agent.newSession('web:x');
    const fresh = agent.sessionInfo('web:x')!;
    expect(fresh.sessionId).not.toBe(old.sessionId);
    expect(fresh.messageCount).toBe(0);
    await agent.runTurn({ sessionKey: 'web:x', text: 'what number?' });
    expect(h.fake.requests[1].body.messages.slice(1)).toEqual([{ role: 'user', content: 'what number?' }]);
    const store = SessionStore.open(h.paths.stateDb, { logger: silentLogger() });
    expect(store.messages(old.sessionId).map((m) => m.content)).toEqual(['remember 42', 'one']);
    store.close();
  });

  it('a history cut off mid-tool (the process died) is repaired so the API accepts it', async () => {
    h = await harness();
    const store = SessionStore.open(h.paths.stateDb, { logger: silentLogger() });
    const session = store.currentOrCreate('k');
    store.append(session.id, { role: 'user', content: 'start' });
    store.append(session.id, {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'done', type: 'function', function: { name: 'echo', arguments: '{}' } },
        { id: 'lost', type: 'function', function: { name: 'terminal', arguments: '{}' } },
      ],
    });
    store.append(session.id, { role: 'tool', tool_call_id: 'done', content: 'ok' });
    store.append(session.id, { role: 'tool', tool_call_id: 'orphan', content: 'answers nothing' });
    store.close();
    h.fake.enqueue({ text: 'fine' });
    await h.agent().runTurn({ sessionKey: 'k', text: 'again' });
    const tools = toolMessages(h.fake.requests[0].body);
    expect(tools.map((m) => m.tool_call_id)).toEqual(['done', 'lost']);
    expect(tools[1].content).toBe('[Tool result lost — the gateway stopped before terminal finished]');
  });

  it('turns of one key run one after the other', async () => {
    h = await harness();
    h.fake.enqueue({ text: 'first' }, { text: 'second' });
    const agent = h.agent();
    const [a, b] = await Promise.all([
      agent.runTurn({ sessionKey: 'same', text: 'one' }),
      agent.runTurn({ sessionKey: 'same', text: 'two' }),
    ]);
    expect([a.text, b.text]).toEqual(['first', 'second']);
    expect(h.fake.requests[1].body.messages.slice(1).map((m) => m.content)).toEqual(['one', 'first', 'two']);
  });

  it('describe() names the model and the backend', async () => {
    h = await harness();
    expect(h.agent().describe()).toEqual({ model: 'fake-model', backend: 'local', platformBackend: 'local' });
  });
});
