import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LocalEnvironment, type Environment } from '../../src/environments/index.js';
import { Gateway, type InboundAttachment } from '../../src/gateway/index.js';
import { tempDir } from '../helpers/tool-context.js';
import { FakeAgent, RecordingAdapter, message, testConfig, until, untilAborted } from './helpers.js';

/** A FakeAgent whose sessions have a real local environment, so the gateway can save files into it. */
class FilesAgent extends FakeAgent {
  readonly dir = tempDir('hermes-turn-files-');
  private readonly env = new LocalEnvironment({ cwd: this.dir, timeout: 30, maxOutputBytes: 50_000, childEnv: () => ({ PATH: process.env.PATH ?? '' }) });
  async environment(): Promise<Environment> {
    return this.env;
  }
}

async function started(agent: FakeAgent): Promise<{ gateway: Gateway; adapter: RecordingAdapter }> {
  const adapter = new RecordingAdapter();
  const gateway = new Gateway({ agent, config: testConfig({ platforms: { web: { enabled: false } } }), env: { GATEWAY_ALLOW_ALL_USERS: 'true' } });
  gateway.register(adapter);
  await gateway.start();
  return { gateway, adapter };
}

const withFile = (text: string, file: InboundAttachment) => ({ ...message(text), attachments: [file] });

describe('files and turns', () => {
  it('a new message while a file still arrives loses nothing: the file is saved and its message recorded, then the new one is answered', async () => {
    const agent = new FilesAgent(untilAborted);
    const { gateway } = await started(agent);
    const slow = new PassThrough();
    await gateway.dispatch(withFile('here is the log', { name: 'slow.log', mimeType: 'text/plain', open: async () => slow }));
    slow.write('first half\n');
    await until(() => existsSync(join(agent.dir, 'uploads')), 'the upload to start');
    agent.behaviour = async (options) => ({ text: `answer: ${options.text}`, status: 'completed' });
    await gateway.dispatch(message('what does it say?'));
    slow.end('second half\n');
    await until(() => agent.turns.length === 2 && agent.turns[1].finished, 'the second turn');
    expect(agent.turns[0].options.text).toBe('here is the log\n[attached: uploads/slow.log — 23 B, text/plain]');
    expect(agent.turns[0].options.signal?.reason).toBe('user sent a new message');
    expect(agent.turns[1].options.text).toBe('what does it say?');
    expect(readFileSync(join(agent.dir, 'uploads', 'slow.log'), 'utf8')).toBe('first half\nsecond half\n');
    await gateway.stop();
  });

  it('a file\'s caption is never a command: "/new" with a file is a turn, not a new session', async () => {
    const agent = new FilesAgent();
    const { gateway } = await started(agent);
    await gateway.dispatch(withFile('/new', { name: 'a.txt', open: async () => new PassThrough().end('a') }));
    await gateway.idle();
    expect(agent.newSessions).toEqual([]);
    expect(agent.turns.map((turn) => turn.options.text)).toEqual(['/new\n[attached: uploads/a.txt — 1 B, text/plain]']);
    await gateway.stop();
  });

  it('a runner without an environment tells the sender that files cannot be received, and answers the text', async () => {
    const agent = new FakeAgent();
    const { gateway, adapter } = await started(agent);
    await gateway.dispatch(withFile('and this', { name: 'a.txt', open: async () => new PassThrough().end('a') }));
    await gateway.idle();
    expect(adapter.textsTo('test:a')).toEqual(['Files cannot be received here: this gateway has no environment to save them to. Send the text instead.', 'answer: and this']);
    await gateway.stop();
  });
});
