import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/agent/index.js';
import { configSchema } from '../../src/config/schema.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply } from '../fakes/openai-server.js';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A logger whose lines a test reads. */
function recordingLogger(): { logger: Logger; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

function client(url: string, logger: Logger) {
  const model = configSchema.parse({ model: { base_url: url, name: 'fake-model', max_retries: 0 } }).model;
  return createModelClient({ model, logger, env: {} });
}

/** Asks a fake that answers `replies` 'hi', then 'again', on one client; its answers, log lines and the requests it saw. */
async function askTwice(replies: FakeReply[]) {
  fake = await startFakeOpenAI();
  fake.enqueue(...replies);
  const { logger, lines } = recordingLogger();
  const model = client(fake.url, logger);
  const first = await model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
  const second = await model.complete({ messages: [{ role: 'user', content: 'again' }], tools: [] });
  return { first, second, lines, requests: fake.requests };
}

describe('model.stream is on by default, and off for an endpoint that does not stream', () => {
  it('with no model.stream in the config, the reply is asked for as SSE and heard piece by piece', async () => {
    fake = await startFakeOpenAI();
    fake.enqueue({ text: 'a streamed answer that comes in several chunks', chunkChars: 5 });
    const { logger } = recordingLogger();
    const deltas: string[] = [];
    const reply = await client(fake.url, logger).complete({ messages: [{ role: 'user', content: 'hi' }], tools: [], onTextDelta: (d) => deltas.push(d) });
    expect(fake.requests[0]!.body.stream).toBe(true);
    expect(reply.content).toBe('a streamed answer that comes in several chunks');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(reply.content);
  });

  it('a server that refuses streaming is asked again without it, says so once, and is not asked to stream again', async () => {
    const { first, second, lines, requests } = await askTwice([
      { status: 400, message: 'Streaming is not supported by this server', type: 'invalid_request_error' },
      { text: 'first whole answer' },
      { text: 'second whole answer' },
    ]);
    expect(first.content).toBe('first whole answer');
    expect(second.content).toBe('second whole answer');
    expect(requests.map((r) => r.body.stream)).toEqual([true, false, false]);
    const notes = lines.filter((line) => line.msg.includes('does not stream'));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.msg).toContain('model.stream');
  });

  it('a server that answers a streamed request with a JSON body (no SSE events) gets whole requests from then on', async () => {
    const { first, second, lines, requests } = await askTwice([{ text: 'json despite stream', stream: false }, { text: 'json again', stream: false }, { text: 'and again', stream: false }]);
    expect(first.content).toBe('json again');
    expect(second.content).toBe('and again');
    expect(requests.map((r) => r.body.stream)).toEqual([true, false, false]);
    expect(lines.filter((line) => line.msg.includes('without SSE events'))).toHaveLength(1);
  });

  it('an ordinary 400 on a streamed request is the request failing, not a reason to stop streaming', async () => {
    fake = await startFakeOpenAI();
    fake.enqueue({ status: 400, message: 'messages: too many', type: 'invalid_request_error' }, { text: 'ok' });
    const { logger } = recordingLogger();
    const model = client(fake.url, logger);
    await expect(model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).rejects.toThrow();
    await model.complete({ messages: [{ role: 'user', content: 'again' }], tools: [] });
    expect(fake.requests.map((r) => r.body.stream)).toEqual([true, true]);
  });
});
