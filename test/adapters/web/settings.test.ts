import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebAdapter, type WebAdapter } from '../../../adapters/web/index.js';
import { defaultConfig, loadConfig, type HermesConfig } from '../../../src/config/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';

/*
 * The settings form's API against the real web server and a fake OpenAI-compatible endpoint
 * that wants a key. The attacks (no token, another site, an .env injection, no login) must
 * leave HERMES_HOME as it was.
 */
const KEY = 'sk-test-0123456789abcdef';

describe('web chat settings: the model and its key, from the page', () => {
  let home: string;
  let model: FakeOpenAI;
  let adapter: WebAdapter;
  let config: HermesConfig;
  let env: NodeJS.ProcessEnv;
  let logged: string[];
  let token: string;

  const envFile = () => join(home, '.env');
  const configFile = () => join(home, 'config.yaml');

  async function start(auth: 'token' | 'none' = 'token'): Promise<void> {
    config = defaultConfig();
    config.platforms.web.port = 0;
    config.platforms.web.auth = auth;
    logged = [];
    env = {};
    const logger = pino({ level: 'debug' }, { write: (line: string) => void logged.push(line) });
    adapter = createWebAdapter({ config, env, logger, paths: { home, config: configFile(), env: envFile() } });
    await adapter.start(async () => undefined, new AbortController().signal);
    token = new URL(adapter.openUrl!).searchParams.get('token') ?? '';
  }

  function post(path: string, body: unknown, headers: Record<string, string> = {}, withToken = true): Promise<Response> {
    return fetch(new URL(path, adapter.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(withToken && token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body: JSON.stringify(body),
    });
  }

  const form = (overrides: Record<string, string> = {}) => ({ provider: 'custom', baseUrl: model.url, apiKey: KEY, model: 'fake-small', ...overrides });

  beforeEach(async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-settings-'));
    model = await startFakeOpenAI({ apiKey: KEY, listModels: ['fake-small', 'fake-large'], fallback: { text: 'OK' } });
  });
  afterEach(async () => {
    await adapter?.stop();
    await model.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('lists the endpoint models, saves the key to .env (0600) and the model to config.yaml, applies them at once, and never sends the key back or logs it', async () => {
    await start();
    const listed = await post('/api/settings/models', form());
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { models: string[] }).models).toEqual(['fake-large', 'fake-small']);

    // The test call alone writes nothing.
    const tested = await post('/api/settings/test', form());
    expect(tested.status).toBe(200);
    expect(await tested.json()).toEqual({ reply: 'OK' });
    expect(existsSync(envFile()) || existsSync(configFile())).toBe(false);

    const saved = await post('/api/settings', form());
    const answer = await saved.text();
    expect(saved.status, answer).toBe(200);
    expect(answer).not.toContain(KEY);
    expect(JSON.parse(answer)).toMatchObject({ saved: true, reply: 'OK', needsRestart: [] });
    // The test call went to the endpoint with the key.
    expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);

    expect(readFileSync(envFile(), 'utf8')).toBe(`MODEL_API_KEY='${KEY}'\n`);
    expect(statSync(envFile()).mode & 0o777).toBe(0o600);
    const written = loadConfig({ home, loadEnv: false, env: {} }).config.model;
    expect(written).toMatchObject({ base_url: model.url, name: 'fake-small', api_key_env: 'MODEL_API_KEY' });
    // Applied in place: whoever holds this configuration (the gateway, the agent) sees it now.
    expect(config.model).toMatchObject({ base_url: model.url, name: 'fake-small', api_key_env: 'MODEL_API_KEY' });
    expect(env.MODEL_API_KEY).toBe(KEY);

    const view = await fetch(new URL('/api/settings', adapter.url), { headers: { authorization: `Bearer ${token}` } });
    const viewText = await view.text();
    expect(JSON.parse(viewText)).toEqual({ provider: 'custom', baseUrl: model.url, model: 'fake-small', apiKeyEnv: 'MODEL_API_KEY', keySet: true, canSave: true });
    const status = await (await fetch(new URL('/api/status', adapter.url), { headers: { authorization: `Bearer ${token}` } })).text();
    expect(JSON.parse(status).model.configured).toBe(true);
    for (const text of [viewText, status, logged.join('')]) expect(text).not.toContain(KEY);
    expect(logged.join('')).toContain('model settings saved from the web chat');

    // With the key field left empty the saved key is used, and .env keeps its one line.
    const again = await post('/api/settings', form({ apiKey: '', model: 'fake-large' }));
    expect(again.status).toBe(200);
    expect(readFileSync(envFile(), 'utf8')).toBe(`MODEL_API_KEY='${KEY}'\n`);
    expect(config.model.name).toBe('fake-large');
  });

  it('never sends the saved key to another base URL: with the key field empty, the model list, the test call and the save to a new host carry no key and say "enter the key for <host>"', async () => {
    await start();
    expect((await post('/api/settings', form())).status).toBe(200);
    expect(env.MODEL_API_KEY).toBe(KEY);
    // Another host: a server of the attacker's that records what it is sent, and answers as a model would.
    const seen: Array<{ path: string; authorization: string | undefined }> = [];
    const other = createServer((req, res) => {
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url?.endsWith('/models')) res.end(JSON.stringify({ object: 'list', data: [{ id: 'bait', object: 'model', created: 0, owned_by: 'x' }] }));
        else res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'bait', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'OK' } }] }));
      });
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const host = `127.0.0.1:${(other.address() as AddressInfo).port}`;
      const elsewhere = form({ apiKey: '', baseUrl: `http://${host}/v1`, model: 'bait' });
      const listed = await post('/api/settings/models', elsewhere);
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { note?: string }).note).toContain(`enter the key for ${host}`);
      const tested = await post('/api/settings/test', elsewhere);
      expect(tested.status).toBe(200);
      expect(((await tested.json()) as { note?: string }).note).toContain(`enter the key for ${host}`);
      const saved = await post('/api/settings', elsewhere);
      expect(saved.status).toBe(400);
      expect(await saved.text()).toContain(`Not saved: no key was sent: the saved key (MODEL_API_KEY) is for ${model.url}`);
      // Reached: the list and the test call; neither with the key. The save made no request.
      expect(seen.map((request) => request.path)).toEqual(['/v1/models', '/v1/chat/completions']);
      for (const request of seen) expect(request.authorization ?? '').not.toContain(KEY);
      // The settings stay the saved ones.
      expect(config.model.base_url).toBe(model.url);
      expect(loadConfig({ home, loadEnv: false, env: {} }).config.model.base_url).toBe(model.url);
    } finally {
      other.close();
    }
    // The same host and port under another path is another address too; a failure there says why.
    const before = model.requests.length;
    const otherPath = await post('/api/settings/test', form({ apiKey: '', baseUrl: model.url.replace(/\/v1$/, '/other/v1') }));
    expect(otherPath.status).toBe(502);
    expect(await otherPath.text()).toContain('enter the key for 127.0.0.1:');
    expect(model.requests.slice(before).map((request) => request.headers.authorization)).not.toContain(`Bearer ${KEY}`);
    // The saved address itself (here with a trailing slash) still gets its key.
    const same = await post('/api/settings/test', form({ apiKey: '', baseUrl: `${model.url}/` }));
    expect(same.status).toBe(200);
    expect(model.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('saves nothing when the test call fails (a wrong key), and says why without the key', async () => {
    await start();
    const wrong = 'sk-wrong-key-987';
    const saved = await post('/api/settings', form({ apiKey: wrong }));
    const answer = await saved.text();
    expect(saved.status).toBe(502);
    expect(answer).toMatch(/Not saved: the test call to fake-small failed: 401/);
    expect(answer).not.toContain(wrong);
    expect(existsSync(envFile())).toBe(false);
    expect(existsSync(configFile())).toBe(false);
    expect(config.model.name).toBe('');
  });

  it('refuses a request without the login token, from another site, and a key that would add lines to .env; nothing is written', async () => {
    await start();
    const attacks: Array<[string, Promise<Response>, number]> = [
      ['no token', post('/api/settings', form(), {}, false), 401],
      ['no token, model list', post('/api/settings/models', form(), {}, false), 401],
      ['cross-site origin', post('/api/settings', form(), { origin: 'http://evil.example' }), 403],
      ['cross-site fetch', post('/api/settings', form(), { 'sec-fetch-site': 'cross-site' }), 403],
      ['newline in the key', post('/api/settings', form({ apiKey: `${KEY}\nGATEWAY_ALLOW_ALL_USERS=true` })), 400],
      ['carriage return in the key', post('/api/settings', form({ apiKey: `${KEY}\rX=1` })), 400],
      ['quote in the key', post('/api/settings', form({ apiKey: `${KEY}'\nX=1` })), 400],
      ['newline in the model', post('/api/settings', form({ model: 'fake-small\nplatforms: {}' })), 400],
      ['not a URL', post('/api/settings', form({ baseUrl: 'file:///etc/passwd' })), 400],
    ];
    for (const [name, reply, status] of attacks) expect((await reply).status, name).toBe(status);
    // A form post (what another site can send without a preflight) is not JSON: refused.
    const formPost = await fetch(new URL('/api/settings', adapter.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
      body: 'provider=custom',
    });
    expect(formPost.status).toBe(415);
    expect(existsSync(envFile())).toBe(false);
    expect(existsSync(configFile())).toBe(false);
    expect(env.GATEWAY_ALLOW_ALL_USERS).toBeUndefined();
    expect(config.model.name).toBe('');
    // None of them reached the endpoint: no test call was made.
    expect(model.requests).toEqual([]);
  });

  it('with the login off (auth: none) the page may not change settings', async () => {
    await start('none');
    const saved = await post('/api/settings', form());
    expect(saved.status).toBe(403);
    expect(await saved.text()).toMatch(/no login \(platforms\.web\.auth: none\)/);
    const view = (await (await fetch(new URL('/api/settings', adapter.url))).json()) as { canSave: boolean };
    expect(view.canSave).toBe(false);
    expect(existsSync(envFile())).toBe(false);
    expect(existsSync(configFile())).toBe(false);
  });
});
