import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { findExecutable } from '../../src/environments/index.js';
import { e2eConfig } from '../fakes/slack-e2e-model.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../fakes/openai-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';

/*
 * Sessions other people start run on terminal.platform_backend: with `auto` and bubblewrap
 * here, a Telegram user's script runs in the sandbox, where HERMES_HOME and its .env are not.
 */

const ready = findExecutable('bwrap') !== undefined && findExecutable('python3') !== undefined;
if (!ready && process.env.CI !== 'true') console.log('platform backend end-to-end test skipped: bubblewrap or python3 is missing');

const KEY_VAR = 'HERMES_PLATFORM_E2E_KEY';
process.env[KEY_VAR] = 'sk-fake';
const ADA = 1001;
const probe = (home: string) => [
  'import os, socket',
  `home = ${JSON.stringify(home)}`,
  'print("host", socket.gethostname())',
  'print("env-file", os.path.exists(os.path.join(home, ".env")))',
  'print("pid1", open("/proc/1/cmdline", "rb").read().split(b"\\0")[0].decode().rsplit("/", 1)[-1])',
].join('\n');

let api: FakeTelegramApi | undefined;
let model: FakeOpenAI | undefined;
let running: RunningGateway | undefined;
let cleanup: (() => void) | undefined;

afterEach(async () => {
  await running?.stop();
  await model?.close();
  await api?.close();
  cleanup?.();
  running = model = api = cleanup = undefined;
});

/** The model: run the probe, then answer with what it printed. */
const probeModel = (home: string) => (request: RecordedRequest) => {
  const last = request.body.messages[request.body.messages.length - 1];
  if (last.role === 'tool') return { text: `probe: ${JSON.stringify(JSON.parse(String(last.content)).output)}` };
  return { toolCalls: [{ name: 'execute_code', arguments: { code: probe(home) } }] };
};

async function start(terminal: Record<string, unknown>): Promise<void> {
  api = await new FakeTelegramApi().start();
  const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
  delete env.TELEGRAM_WEBHOOK_URL;
  const made = e2eConfig({
    model: { base_url: 'http://127.0.0.1:9/v1', name: 'fake-model', api_key_env: KEY_VAR, stream: false },
    platforms: { telegram: { api_root: api.apiRoot }, slack: { enabled: false }, discord: { enabled: false }, web: { enabled: false } },
    terminal,
  }, env);
  cleanup = made.cleanup;
  writeFileSync(join(made.home, '.env'), 'SOME_SECRET=sk-in-the-home\n');
  model = await startFakeOpenAI({ fallback: { respond: probeModel(made.home) } });
  made.loaded.config.model.base_url = model.url;
  const { startGateway } = await import('../../src/cli/commands/gateway.js');
  running = await startGateway(made.loaded, { env });
}

async function probeAnswer(): Promise<string> {
  api!.injectMessage({ chatId: ADA, userId: ADA, text: 'where am I?' });
  await api!.waitFor(() => api!.sentTo(ADA).some((sent) => sent.text.startsWith('probe: ')), 'the probe answer');
  return api!.sentTo(ADA).find((sent) => sent.text.startsWith('probe: '))!.text;
}

describe.runIf(ready || process.env.CI === 'true')('other people\'s sessions on terminal.platform_backend', () => {
  it('with the default auto, a Telegram session\'s script runs in the sandbox, with no HERMES_HOME in sight', async () => {
    await start({ backend: 'local' });
    const answer = await probeAnswer();
    expect(answer).toContain('host hermes-sandbox');
    expect(answer).toContain('env-file False');
    expect(answer).toContain('pid1 bwrap');
  }, 60_000);

  it('with platform_backend: local, the same script runs on the host (what the warning is about)', async () => {
    await start({ backend: 'local', platform_backend: 'local' });
    const answer = await probeAnswer();
    expect(answer).not.toContain('hermes-sandbox');
    expect(answer).toContain('env-file True');
  }, 60_000);
});
