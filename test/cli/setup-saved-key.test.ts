import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInteractive } from '../../src/cli/commands/setup.js';
import { loadConfig } from '../../src/config/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { runHermes } from './cli-process.js';
import { tempFoldersPerTest } from '../helpers/temp-folders.js';

/*
 * `hermes setup --non-interactive` reuses the key saved in .env when --api-key is not given:
 * only for the base URL it was saved for. Pointed at another address (a server that records
 * what reaches it), it sends nothing there and writes nothing.
 */
const KEY = 'sk-setup-saved-key-0123';
const TOOL_CALL = { toolCalls: [{ name: 'hermes_check', arguments: { word: 'ready' } }] };

let model: FakeOpenAI;
let other: Server;
let otherUrl: string;
const seen: Array<string | undefined> = [];

beforeAll(async () => {
  model = await startFakeOpenAI({ apiKey: KEY, models: ['fake-tools-model'], listModels: ['fake-tools-model'], fallback: TOOL_CALL });
  other = createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  other.close();
  await model.close();
});

const temp = tempFoldersPerTest();

/** A fresh HERMES_HOME whose config names the fake model and whose .env holds KEY, saved for the fake's URL. */
function homeWithSavedKey(prefix: string): { root: string; config: string } {
  const root = temp(prefix);
  const config = `model:\n  base_url: ${model.url}\n  name: fake-tools-model\n  api_key_env: MODEL_API_KEY\n`;
  writeFileSync(join(root, 'config.yaml'), config);
  writeFileSync(join(root, '.env'), `MODEL_API_KEY='${KEY}'\n`, { mode: 0o600 });
  return { root, config };
}

describe('hermes setup and the saved key', { timeout: 60_000 }, () => {
  it('with no --api-key, a new --base-url gets no saved key: setup fails saying "enter the key for <host>" and writes nothing; the saved URL still gets it', async () => {
    const { root, config } = homeWithSavedKey('hermes-setup-key-');
    const run = await runHermes(root, ['setup', '--non-interactive', '--provider', 'custom', '--base-url', otherUrl, '--model', 'fake-tools-model']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the saved key (MODEL_API_KEY) is for ${model.url}, not ${otherUrl}; enter the key for ${new URL(otherUrl).host}`);
    expect(run.stderr).toContain('the model settings were not written');
    expect(seen.filter((header) => header?.includes(KEY))).toEqual([]);
    expect(readFileSync(join(root, 'config.yaml'), 'utf8')).toBe(config);

    // The address it was saved for: the key is used, the test call passes.
    const same = await runHermes(root, ['setup', '--non-interactive', '--provider', 'custom', '--base-url', `${model.url}/`, '--model', 'fake-tools-model']);
    expect(same.stderr).toBe('');
    expect(same.code).toBe(0);
    expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('on a terminal, Enter for the key with a new base URL says the saved key is for another address, asks for this one, and saves nothing without it', async () => {
    const { root } = homeWithSavedKey('hermes-setup-key-tty-');
    const env: NodeJS.ProcessEnv = {};
    const loaded = loadConfig({ home: root, env });
    expect(env.MODEL_API_KEY).toBe(KEY);
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    // Provider, base URL, Enter for the key, Enter again; then the other steps skipped.
    input.write(['custom', otherUrl, '', '', '', 'n', 'n', 'n', 'n', 'n'].map((answer) => `${answer}\n`).join(''));
    const before = seen.length;
    await runInteractive(loaded.config, loaded.paths, { input, output }, env).catch(() => undefined);
    expect(shown).toContain(`no key was sent: the saved key (MODEL_API_KEY) is for ${model.url}, not ${otherUrl}; enter the key for ${new URL(otherUrl).host}`);
    expect(shown).toContain('Model settings not saved');
    expect(seen.slice(before)).toEqual([]);
    // The later steps may write their own keys; the model's stay.
    expect(loadConfig({ home: root, env: {} }).config.model).toMatchObject({ base_url: model.url, api_key_env: 'MODEL_API_KEY' });
  });
});
