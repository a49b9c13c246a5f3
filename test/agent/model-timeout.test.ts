import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Gateway } from '../../src/gateway/index.js';
import { message, RecordingAdapter } from '../gateway/helpers.js';
import { harness, type Harness } from './harness.js';

let h: Harness;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.stop(1000);
  gateway = undefined;
  await h?.cleanup();
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(20);
}

describe('model.timeout bounds the whole request, a stalled body included', () => {
  for (const stream of [false, true]) {
    it(`a server that sends headers and then stalls the ${stream ? 'SSE stream' : 'JSON body'} fails the turn with the setting to raise`, async () => {
      h = await harness({ fallback: { stallBody: true } });
      const agent = h.agent({ config: { model: { timeout: 0.5, max_retries: 1, stream } } });
      const result = await agent.runTurn({ sessionKey: `test:stall-${stream}`, text: 'hello' });
      expect(result.status).toBe('error');
      expect(result.text).toContain('did not answer within 0.5s after 2 attempts');
      expect(result.text).toContain('model.timeout');
      expect(h.fake.requests).toHaveLength(2);
      // The client hung up on both stalled replies: nothing is left reading them.
      await until(() => h.fake.requests.every((request) => request.aborted));
    }, 30_000);
  }

  it('releases the turn slot: with one slot, a message waiting behind the stalled turn is answered after it times out', async () => {
    h = await harness();
    h.fake.enqueue({ stallBody: true, stream: true }, { text: 'the second answer' });
    const agent = h.agent({ config: { model: { timeout: 0.5, stream: true } } });
    const config = h.config({ gateway: { max_concurrent_turns: 1 } });
    gateway = new Gateway({ agent, config, env: { GATEWAY_ALLOW_ALL_USERS: 'true' } });
    const adapter = new RecordingAdapter();
    gateway.register(adapter);
    await gateway.start();
    await adapter.handler!(message('first', { thread: 'a' }));
    await h.fake.waitForRequests(1);
    await adapter.handler!(message('second', { thread: 'b' }));
    // The reply streams: it is sent once and edited in place until it is whole.
    await until(() => adapter.shownTo('test:b').includes('the second answer') && adapter.textsTo('test:a').length > 0);
    expect(adapter.textsTo('test:a').join('\n')).toContain('did not answer within 0.5s');
    expect(adapter.shownTo('test:b')).toEqual(['the second answer']);
  }, 30_000);
});
