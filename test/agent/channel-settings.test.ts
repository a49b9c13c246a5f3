import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness.js';

/* platforms.<name>.channels.<id>: a channel's own model and system prompt; a thread's /model still wins. */
let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

describe('per-channel settings', () => {
  it('a channel gets its model and its instructions, another channel the defaults, and /model in a thread wins', async () => {
    h = await harness();
    const agent = h.agent({ config: { platforms: { slack: { channels: { C1: { model: 'channel-model', system_prompt: 'Answer in French.' } } } } } });
    h.fake.enqueue({ text: 'bonjour' }, { text: 'hello' }, { text: 'salut' });
    await agent.runTurn({ sessionKey: 'slack:T:C1:1', text: 'hi', channel: { platform: 'slack', id: 'C1' } });
    await agent.runTurn({ sessionKey: 'slack:T:C2:1', text: 'hi', channel: { platform: 'slack', id: 'C2' } });
    agent.updateThreadSettings('slack:T:C1:1', { model: 'thread-model' });
    await agent.runTurn({ sessionKey: 'slack:T:C1:1', text: 'again', channel: { platform: 'slack', id: 'C1' } });
    const [first, other, chosen] = h.fake.requests.map((r) => r.body);
    expect(first.model).toBe('channel-model');
    expect(String(first.messages[0].content)).toMatch(/## This channel's instructions\n\nAnswer in French\.$/);
    expect(other.model).toBe('fake-model');
    expect(String(other.messages[0].content)).not.toContain('Answer in French.');
    expect(chosen.model).toBe('thread-model');
    expect(String(chosen.messages[0].content)).toContain('Answer in French.');
    // /usage names the model the channel's thread uses.
    agent.updateThreadSettings('slack:T:C1:1', { model: undefined });
    expect((await agent.usage('slack:T:C1:1'))?.model).toBe('channel-model');
  });

  it('the same channel id on another platform is not that channel', async () => {
    h = await harness();
    const agent = h.agent({ config: { platforms: { slack: { channels: { '42': { model: 'slack-only' } } } } } });
    h.fake.enqueue({ text: 'ok' });
    await agent.runTurn({ sessionKey: 'telegram:42', text: 'hi', channel: { platform: 'telegram', id: '42' } });
    expect(h.fake.requests[0].body.model).toBe('fake-model');
  });
});
