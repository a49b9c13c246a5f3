import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { words } from '../fakes/stream-harness.js';

/*
 * Exactly once across a crash: `hermes gateway` as a real process (the built CLI) is killed
 * with SIGKILL in the middle of a reply and started again on the same HERMES_HOME; what the
 * outbox in state.db holds is delivered, nothing twice, and a turn the kill cut off is said.
 */
const cli = join(import.meta.dirname, '../../dist/src/cli/main.js');
const built = existsSync(cli);
if (!built && process.env.CI !== 'true') console.log('delivery tests skipped: dist/ is not built (npm run build)');

const ADA = 1001;
const GROUP = -100900;
const KEY = 'HERMES_DELIVERY_TEST_KEY';

let api: FakeTelegramApi | undefined;
let model: FakeOpenAI | undefined;
let child: ChildProcess | undefined;
let home: string | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await model?.close();
  await api?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  child = api = model = home = undefined;
});

function env(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^(TELEGRAM|SLACK|DISCORD)_/.test(key) || key === 'GATEWAY_ALLOW_ALL_USERS') delete env[key];
  return { ...env, TELEGRAM_BOT_TOKEN: api!.token, TELEGRAM_ALLOWED_USERS: String(ADA), [KEY]: 'sk-fake', HERMES_HOME: '' };
}

function writeConfig(): void {
  writeFileSync(
    join(home!, 'config.yaml'),
    [
      'model:',
      `  base_url: ${model!.url}`,
      '  name: fake-model',
      `  api_key_env: ${KEY}`,
      '  stream: true',
      'terminal:',
      '  platform_backend: local',
      'platforms:',
      '  slack: { enabled: false }',
      '  discord: { enabled: false }',
      '  web: { enabled: false }',
      `  telegram: { api_root: "${api!.apiRoot}" }`,
      '',
    ].join('\n'),
  );
}

/** Starts the gateway process; resolves once it polls for updates. */
async function startGateway(): Promise<ChildProcess> {
  const polls = api!.callsOf('getUpdates').length;
  const proc = spawn(process.execPath, [cli, '--home', home!, 'gateway'], { env: env(), stdio: ['ignore', 'ignore', 'ignore'] });
  child = proc;
  await api!.waitFor(() => api!.callsOf('getUpdates').length > polls, 'the gateway to poll');
  return proc;
}

async function kill(proc: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

describe.runIf(built || process.env.CI === 'true')('exactly once across SIGKILL (hermes gateway process, fake Telegram)', () => {
  it('killed while the 5th of 12 parts is in flight, restarted: parts 5 to 12 arrive, in order, and nothing twice', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-delivery-'));
    api = await new FakeTelegramApi().start();
    model = await startFakeOpenAI({ stream: true, fallback: { text: 'unexpected second request' } });
    const lines = Array.from({ length: 12 }, (_, i) => `Part ${i + 1}: ${String.fromCharCode(97 + i).repeat(4000)}`);
    model.enqueue({ text: lines.join('\n'), chunkChars: 60_000 });
    writeConfig();
    // The fifth part's send is lost in flight: Telegram never answers it.
    let sends = 0;
    api.hold = (method) => method === 'sendMessage' && ++sends === 5;
    const first = await startGateway();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'all twelve please' });
    await api.waitFor(() => api!.held === 1, 'the fifth part in flight');
    expect(api.sentTo(ADA).map((message) => message.text)).toEqual(lines.slice(0, 4));
    await kill(first);
    api.hold = undefined;
    await startGateway();
    await api.waitFor(() => api!.sentTo(ADA).length >= 12, 'all twelve parts');
    // Give a duplicate the chance to show.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(api.sentTo(ADA).map((message) => message.text)).toEqual(lines);
    expect(model.requests).toHaveLength(1);
  }, 120_000);

  it('killed while the answer streams: the restarted gateway finishes the streamed message in place, says the turn was cut off, and /retry asks again', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-delivery-'));
    api = await new FakeTelegramApi().start();
    model = await startFakeOpenAI({ stream: true, fallback: { text: 'the retried answer' } });
    const answer = words(2000, 'slow');
    model.enqueue({ text: answer, chunkChars: 20, paceMs: 20 });
    writeConfig();
    const first = await startGateway();
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} a very long story` });
    // The answer's first message is out and being edited.
    await api.waitFor(() => api!.sentTo(GROUP).some((message) => message.edits >= 2), 'the answer streaming');
    await kill(first);
    const shown = api.sentTo(GROUP).map((message) => ({ id: message.message_id, text: message.text }));
    await startGateway();
    await api.waitFor(() => api!.sentTo(GROUP).some((message) => message.text.includes('/retry')), 'the cut-off notice');
    const after = api.sentTo(GROUP);
    // No part was sent again: the streamed messages are the same ones, plus the notice.
    expect(after.length).toBe(shown.length + 1);
    shown.forEach((message, i) => expect(after[i].message_id).toBe(message.id));
    expect(after.at(-1)!.text).toContain('a very long story');
    for (const message of after.slice(0, -1)) expect(answer.startsWith(message.text.slice(0, 50))).toBe(true);
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `/retry@${api.botUsername}` });
    await api.waitFor(() => api!.sentTo(GROUP).some((message) => message.text === 'the retried answer'), 'the retried answer');
    const retried = model.requests.at(-1)!.body.messages.filter((m) => m.role === 'user').at(-1);
    expect(String(retried?.content)).toContain('a very long story');
  }, 120_000);
});
