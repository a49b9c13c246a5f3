import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/index.js';
import { runInteractive } from '../../src/cli/commands/setup.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';

const KEY = 'sk-interactive-key';
let model: FakeOpenAI;
let telegram: FakeTelegramApi;

beforeAll(async () => {
  model = await startFakeOpenAI({ apiKey: KEY, listModels: ['fake-a', 'fake-tools-model'], fallback: { toolCalls: [{ name: 'hermes_check', arguments: { word: 'ready' } }] } });
  telegram = await new FakeTelegramApi().start();
});

afterAll(async () => {
  await Promise.all([model.close(), telegram.close()]);
});

/** Runs the interactive walk with `answers` typed one per line; returns what it showed. */
async function walk(root: string, answers: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = {};
  const { config, paths } = loadConfig({ home: root, env });
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  input.write(answers.map((answer) => `${answer}\n`).join(''));
  await runInteractive(config, paths, { input, output }, env);
  return shown;
}

describe('hermes setup on a terminal', () => {
  it('walks through the model (listed, key saved, tested with a tool call), the backend and Telegram (token checked, the last sender allowed)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hermes-setup-interactive-'));
    writeFileSync(join(root, 'config.yaml'), `platforms:\n  telegram:\n    api_root: ${telegram.apiRoot}\n`);
    telegram.injectMessage({ chatId: 5151, userId: 5151, text: 'hi', firstName: 'Grace' });
    const shown = await walk(root, ['custom', model.url, KEY, '2', '', 'y', telegram.token, '', '', 'n', 'n']);
    expect(shown).toContain('4. any OpenAI-compatible server');
    expect(shown).toContain('  2. fake-tools-model');
    expect(shown).toContain('ok: fake-tools-model at');
    expect(shown).toContain('Terminal backends:');
    expect(shown).toContain('ok: the bot is @hermes_test_bot');
    expect(shown).toContain('Allow Grace (id 5151), who wrote last? [Y/n]');
    expect(shown).not.toContain(KEY);
    expect(shown).not.toContain(telegram.token);
    const config = parse(readFileSync(join(root, 'config.yaml'), 'utf8')) as { model: Record<string, string>; platforms: { telegram: { allowed_users: string[] } }; terminal: { backend: string } };
    expect(config.model).toMatchObject({ base_url: model.url, name: 'fake-tools-model', api_key_env: 'MODEL_API_KEY' });
    expect(config.terminal.backend).toBe('local');
    expect(config.platforms.telegram.allowed_users).toEqual(['5151']);
    expect(statSync(join(root, '.env')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(root, '.env'), 'utf8')).toBe(`MODEL_API_KEY='${KEY}'\nTELEGRAM_BOT_TOKEN='${telegram.token}'\n`);
  });

  it('asks before saving model settings whose test call failed, and saves nothing when told no', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hermes-setup-interactive-'));
    const shown = await walk(root, ['custom', model.url, 'sk-wrong', 'fake-tools-model', 'n', '', 'n', 'n', 'n']);
    expect(shown).toMatch(/failed: The model API at .* refused the key \(401/);
    expect(shown).toContain('Save these settings anyway? [y/N]');
    expect(() => readFileSync(join(root, '.env'), 'utf8')).toThrow(/ENOENT/);
    expect(readFileSync(join(root, 'config.yaml'), 'utf8')).not.toContain('fake-tools-model');
  });

  it('stops with a clear error when the input ends before the questions do', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hermes-setup-interactive-'));
    const env: NodeJS.ProcessEnv = {};
    const { config, paths } = loadConfig({ home: root, env });
    const input = new PassThrough();
    input.end('skip\n');
    await expect(runInteractive(config, paths, { input, output: new PassThrough() }, env)).rejects.toThrow(/the input ended before every question was answered/);
  });
});
