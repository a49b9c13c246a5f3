import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExecutable } from '../../src/environments/index.js';
import { packageRoot } from '../../src/shared/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';

/*
 * `hermes chat` on a pseudo-terminal, as a person uses it: Python's pty module gives the
 * built CLI a real terminal; keystrokes (Enter, Ctrl-C) go in as bytes.
 */
const cli = join(packageRoot(), 'dist/src/cli/main.js');
const hasPython = findExecutable('python3') !== undefined;
if (!hasPython && process.env.CI !== 'true') console.log('test/cli/chat-pty: python3 not found (needed for a pty); skipping');

let fake: FakeOpenAI | undefined;
let home: string | undefined;
afterEach(async () => {
  await fake?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** `hermes chat` on a pty with HERMES_HOME `home`: keystrokes in, everything shown so far out. */
function chatOnPty(home: string) {
  const child = spawn(
    'python3',
    ['-c', 'import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)', process.execPath, cli, '--home', home, 'chat', '--user', 'pty'],
    { stdio: 'pipe', env: { ...process.env, HERMES_HOME: '' } },
  );
  let shown = '';
  child.stdout.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  return {
    type: (keys: string) => child.stdin.write(keys),
    screen: () => shown,
    exited: new Promise<number | null>((resolve) => child.on('close', resolve)),
  };
}

describe.runIf(hasPython || process.env.CI === 'true')('hermes chat on a terminal', () => {
  it('prompts, answers, interrupts a turn on Ctrl-C, and exits on Ctrl-C at the prompt', async () => {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` before these tests`);
    fake = await startFakeOpenAI();
    fake.enqueue({ text: 'Hi from the model.' }, { hang: true }, { text: 'Back again.' });
    home = mkdtempSync(join(tmpdir(), 'hermes-chat-pty-'));
    writeFileSync(join(home, 'config.yaml'), `model:\n  base_url: ${fake.url}\n  name: fake-model\n  max_retries: 0\n`);
    const { type, screen, exited } = chatOnPty(home);
    const prompts = () => screen().split('you> ').length - 1;

    await expect.poll(prompts, { timeout: 20_000 }).toBe(1);
    expect(screen()).toContain('hermes chat — model fake-model, backend local');
    type('hello\r');
    await expect.poll(screen, { timeout: 20_000 }).toContain('Hi from the model.');
    await expect.poll(prompts, { timeout: 20_000 }).toBe(2);

    type('think forever\r');
    const hanging = await fake.waitForRequests(2);
    type('\x03');
    await expect.poll(screen, { timeout: 20_000 }).toContain('(turn interrupted: interrupted by user)');
    expect(hanging.aborted).toBe(true);
    await expect.poll(prompts, { timeout: 20_000 }).toBe(3);

    type('again\r');
    await expect.poll(screen, { timeout: 20_000 }).toContain('Back again.');
    expect(String(fake.requests[2].body.messages.at(-1)!.content)).toContain('previous turn was interrupted (interrupted by user)');
    await expect.poll(prompts, { timeout: 20_000 }).toBe(4);
    type('\x03');
    expect(await exited).toBe(0);
  });
});

describe.runIf(hasPython || process.env.CI === 'true')('hermes chat approvals on a terminal', () => {
  it('asks before a risky command and runs it only after "y"', async () => {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` before these tests`);
    home = mkdtempSync(join(tmpdir(), 'hermes-chat-approve-'));
    const work = mkdtempSync(join(tmpdir(), 'hermes-chat-approve-work-'));
    writeFileSync(join(work, 'keep.txt'), 'x');
    fake = await startFakeOpenAI();
    const risky = 'chmod -R 777 .';
    fake.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: `${risky} && echo changed` } }] },
      { text: 'Done with the first.' },
      { toolCalls: [{ name: 'terminal', arguments: { command: `${risky} && echo again` } }] },
      { text: 'Done with the second.' },
    );
    writeFileSync(
      join(home, 'config.yaml'),
      `model:\n  base_url: ${fake.url}\n  name: fake-model\n  max_retries: 0\nterminal:\n  cwd: ${work}\n`,
    );
    const { type, screen, exited } = chatOnPty(home);
    const asked = () => screen().split('Allow it? [y/N]').length - 1;

    await expect.poll(screen, { timeout: 20_000 }).toContain('you> ');
    type('open it up\r');
    await expect.poll(asked, { timeout: 20_000 }).toBe(1);
    expect(screen()).toContain(risky);
    type('n\r');
    await expect.poll(screen, { timeout: 20_000 }).toContain('Done with the first.');
    const toolResult = (request: number) => JSON.parse(String(fake!.requests[request].body.messages.at(-1)!.content)) as Record<string, unknown>;
    expect(toolResult(1).error).toContain('the user did not approve it');
    expect(toolResult(1).output).toBeUndefined();

    type('again please\r');
    await expect.poll(asked, { timeout: 20_000 }).toBe(2);
    type('y\r');
    await expect.poll(screen, { timeout: 20_000 }).toContain('Done with the second.');
    expect(toolResult(3)).toEqual({ output: 'again\n', exit_code: 0 });
    type('/exit\r');
    expect(await exited).toBe(0);
  }, 90_000);
});
