import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/environments/index.js';
import { SessionStore } from '../../src/sessions/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';

/*
 * `hermes gateway` as a real process (the built CLI; `npm test` builds first): it runs with
 * no platform tokens at all, and SIGTERM aborts the running turn, kills the script and exits.
 */
const cli = join(import.meta.dirname, '../../dist/src/cli/main.js');
const built = existsSync(cli);
const hasPython = spawnSync('python3', ['--version']).status === 0;
const runnable = (built && hasPython) || process.env.CI === 'true';
if (!runnable) console.log(`hermes gateway process tests skipped: ${built ? 'python3 is not installed' : 'dist/ is not built (npm run build)'}`);

let child: ChildProcess | undefined;
let home: string | undefined;
let api: FakeTelegramApi | undefined;
let model: FakeOpenAI | undefined;

afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await model?.close();
  await api?.close();
  if (home) rmSync(home, { recursive: true, force: true });
  child = home = api = model = undefined;
});

function startCli(env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const proc = spawn(process.execPath, [cli, '--home', home!, 'gateway'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  proc.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  child = proc;
  return { child: proc, output: () => output, exited };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(TELEGRAM|SLACK|DISCORD)_/.test(key) || key === 'GATEWAY_ALLOW_ALL_USERS') delete env[key];
  }
  return env;
}

describe.runIf(runnable)('hermes gateway (process)', () => {
  it('runs with no platform tokens, says so, and exits cleanly on SIGTERM', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-cli-gw-'));
    writeFileSync(join(home, 'config.yaml'), 'platforms:\n  web:\n    enabled: false\n');
    const run = startCli(baseEnv());
    await until(() => run.output().includes('no platform is running'));
    expect(run.output()).toContain('not started (disabled or no tokens)');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('hermes gateway: stopped');
  }, 30_000);

  it('on SIGTERM aborts the running turn, kills its script process group and exits', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-cli-gw-'));
    api = await new FakeTelegramApi().start();
    model = await startFakeOpenAI({ fallback: e2eModel(home) });
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'model:',
        `  base_url: ${model.url}`,
        '  name: fake-model',
        '  api_key_env: HERMES_CLI_TEST_KEY',
        'platforms:',
        '  telegram:',
        `    api_root: ${api.apiRoot}`,
        '  web:',
        '    enabled: false',
        // The script writes its process group to HERMES_HOME, which a sandbox would not show it.
        'terminal:',
        '  platform_backend: local',
        '',
      ].join('\n'),
    );
    const run = startCli({ ...baseEnv(), HERMES_CLI_TEST_KEY: 'sk-fake', TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: '1001' });
    await until(() => run.output().includes('started telegram'));
    api.injectMessage({ chatId: 1001, userId: 1001, text: 'work hard [SLOW:K]' });
    const pgid = await waitForPgid(home, 'K');
    expect(groupAlive(pgid)).toBe(true);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(groupAlive(pgid)).toBe(false);
    expect(run.output()).toContain('SIGTERM, shutting down');
    // The turn was aborted with the shutdown reason, and that is what the session kept.
    const store = SessionStore.open(join(home, 'state.db'), { logger: silentLogger() });
    try {
      const session = store.current('telegram:1001');
      const tools = store.messages(session!.id).filter((message) => message.role === 'tool');
      expect(tools.map((message) => String(message.content))).toEqual([expect.stringContaining('[execution interrupted — gateway shutting down]')]);
    } finally {
      store.close();
    }
  }, 45_000);
});
