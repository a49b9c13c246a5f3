import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/shared/index.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply } from '../fakes/openai-server.js';

/*
 * `hermes chat` as users run it: the built CLI (npm run build) in a child process, lines on
 * its standard input, the fake model server behind model.base_url.
 */
const cli = join(packageRoot(), 'dist/src/cli/main.js');

let fake: FakeOpenAI;
let home: string;

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` before these tests`);
});

afterEach(async () => {
  await fake?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A fresh HERMES_HOME whose model is a fake that answers `replies` first. */
async function setup(...replies: FakeReply[]): Promise<void> {
  fake = await startFakeOpenAI();
  fake.enqueue(...replies);
  home = mkdtempSync(join(tmpdir(), 'hermes-chat-'));
  writeFileSync(
    join(home, 'config.yaml'),
    `model:\n  base_url: ${fake.url}\n  name: fake-model\n  max_retries: 0\nterminal:\n  cwd: ${home}\n`,
  );
}

interface Chat {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function chat(...args: string[]): Chat {
  const child = spawn(process.execPath, [cli, '--home', home, 'chat', '--user', 'tester', ...args], {
    env: { ...process.env, HERMES_HOME: '', OPENAI_API_KEY: '' },
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function piped(input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = chat();
  run.child.stdin.end(input);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

describe('hermes chat', () => {
  it("answers `printf 'question\\n' | hermes chat` and exits", async () => {
    await setup({ text: 'Forty-two.' });
    const run = await piped('what is the answer?\n');
    expect(run.stdout).toBe('Forty-two.\n');
    expect(run.code).toBe(0);
    expect(fake.requests[0].body.messages.slice(1)).toEqual([{ role: 'user', content: 'what is the answer?' }]);
  });

  it('takes piped lines one at a time, each after the previous turn, showing tool activity', async () => {
    await setup(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo tool-ran' } }] },
      { text: 'first done' },
      {
        respond: (request) => ({
          text: request.body.messages.some((m) => m.content === 'first done') ? 'second saw the first' : 'second did not wait',
        }),
      },
    );
    const run = await piped('first\nsecond\n');
    expect(run.stdout).toBe('first done\nsecond saw the first\n');
    expect(run.stderr).toContain('⚙ terminal {"command":"echo tool-ran"}');
    expect(run.code).toBe(0);
  });

  it('/new starts over and /exit stops reading', async () => {
    await setup({ text: 'one' }, { text: 'two' });
    const run = await piped('remember me\n/new\nwho am I?\n/exit\nnever sent\n');
    expect(run.stdout).toBe('one\nStarted a new session.\ntwo\n');
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1].body.messages.slice(1)).toEqual([{ role: 'user', content: 'who am I?' }]);
  });

  it('a second process on the same state.db continues the console session', async () => {
    await setup({ text: 'noted' }, { text: 'you said blue' });
    await piped('my colour is blue\n');
    const second = await piped('what is my colour?\n');
    expect(second.stdout).toBe('you said blue\n');
    expect(fake.requests[1].body.messages.slice(1).map((m) => m.content)).toEqual(['my colour is blue', 'noted', 'what is my colour?']);
  });

  it('Ctrl-C during a turn interrupts it; the next line carries the note; Ctrl-C at the prompt exits', async () => {
    await setup({ hang: true }, { text: 'back again' });
    const run = chat();
    run.child.stdin.write('think forever\n');
    const hanging = await fake.waitForRequests(1);
    run.child.kill('SIGINT');
    await expect.poll(() => run.stderr(), { timeout: 10_000 }).toContain('(turn interrupted: interrupted by user)');
    expect(hanging.aborted).toBe(true);
    run.child.stdin.write('hello again\n');
    await expect.poll(() => run.stdout(), { timeout: 10_000 }).toBe('back again\n');
    const last = fake.requests[1].body.messages.at(-1)!;
    expect(String(last.content)).toMatch(/^\[System note: your previous turn was interrupted \(interrupted by user\)/);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('a model error is the reply, and the exit code says the last turn failed', async () => {
    await setup({ status: 401, message: 'Incorrect API key provided.' });
    const run = await piped('hi\n');
    expect(run.stdout).toContain('refused the key (401: Incorrect API key provided.). Set OPENAI_API_KEY');
    expect(run.code).toBe(1);
  });
  it('takes terminal control sequences out of the model\'s text (colours, titles, clipboard writes, cursor moves)', async () => {
    await setup({ text: 'plain \u001b[31mred\u001b[0m \u001b]0;owned title\u0007\u001b]52;c;ZXZpbA==\u0007\u001b[2Jend\u0007\r\nnext' });
    const run = await piped('colour me\n');
    expect(run.stdout).toBe('plain red end\nnext\n');
    // eslint-disable-next-line no-control-regex
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('answers /status and /help itself, never sending them to the model; /usage, /undo and /retry work on the session', async () => {
    await setup({ text: 'first answer' }, { text: 'second answer' });
    const run = await piped('/help\n/status\nhello\n/usage\n/retry\n/undo\n/status\n');
    expect(run.stdout).toContain('/status — model, backend, session and kernel');
    expect(run.stdout).toContain('Model: fake-model\nBackend: local\nSession: none yet');
    expect(run.stdout).toMatch(/first answer\nLast turn: 10 in \+ 5 out tokens \(1 model call\)/);
    expect(run.stdout).toContain('second answer\nDropped the last turn ("hello") from what the agent sees.');
    expect(fake.requests.map((r) => r.body.messages.slice(1).map((m) => m.content))).toEqual([['hello'], ['hello']]);
    expect(run.code).toBe(0);
  });
});
