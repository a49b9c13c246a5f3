import { describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';

let h: Harness;
const keep = releaseAfterEach();

describe('usage from the API', () => {
  it('a streamed reply asks for usage in its last chunk, and /usage reports what the API counted', async () => {
    h = keep(await harness({ countTokens: true }), (made) => made.cleanup());
    h.fake.enqueue({ text: 'streamed answer' });
    const agent = h.agent({ config: { model: { stream: true } } });
    await agent.runTurn({ sessionKey: 'k', text: 'hello' });
    expect(h.fake.requests[0].body.stream_options).toEqual({ include_usage: true });
    const usage = await agent.usage('k');
    expect(usage?.lastTurn).toMatchObject({ promptTokens: h.fake.requests[0].tokens, calls: 1, estimated: false });
  });

  it('a server that refuses stream_options is asked again without it, and sizes are counted here', async () => {
    h = keep(await harness(), (made) => made.cleanup());
    h.fake.enqueue({ status: 400, message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error' }, { text: 'fine' }, { text: 'again' });
    const agent = h.agent({ config: { model: { stream: true } } });
    expect((await agent.runTurn({ sessionKey: 'k', text: 'hello' })).text).toBe('fine');
    expect(h.fake.requests.map((r) => r.body.stream_options)).toEqual([{ include_usage: true }, undefined]);
    await agent.runTurn({ sessionKey: 'k', text: 'more' });
    expect(h.fake.requests[2].body.stream_options).toBeUndefined();
    expect((await agent.usage('k'))?.lastTurn?.estimated).toBe(true);
  });
});
