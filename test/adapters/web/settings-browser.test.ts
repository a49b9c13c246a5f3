import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, setConfigValues } from '../../../src/config/index.js';
import { startFakeOpenAI } from '../../fakes/openai-server.js';
import { screenshot } from '../../helpers/browser.js';
import { envWithoutPlatformTokens, sendMessage, startWebChatGateway, webChatBrowserSkipReason, webChatPerTest } from '../../helpers/web-chat.js';
import { webModel } from './web-model.js';

/*
 * A new user's first minutes: `hermes gateway` (what `npm start` runs) on a HERMES_HOME with
 * no config.yaml and no .env, the printed address in chromium, the settings form filled with
 * a fake OpenAI-compatible server's URL and key, then a message and its answer — with no
 * file edited by hand and the same gateway process throughout (no restart).
 */
const skip = webChatBrowserSkipReason('web settings browser tests');

const KEY = 'sk-e2e-settings-5f2a9c';

describe.skipIf(Boolean(skip))('web chat settings in a real browser: from a fresh HERMES_HOME to the first answer', { timeout: 120_000 }, () => {
  const web = webChatPerTest({
    screenshotPrefix: 'web-settings',
    startModel: () => startFakeOpenAI({ apiKey: KEY, listModels: ['fake-chat', 'fake-other'], fallback: webModel() }),
  });

  it('fills the form with the fake server, saves, and the next message gets the model’s answer: no file edited, no restart', async () => {
    const { model } = web;
    const home = (web.run.home = mkdtempSync(join(tmpdir(), 'hermes-web-settings-e2e-')));
    const env = envWithoutPlatformTokens();
    for (const name of ['MODEL_API_KEY', 'OPENAI_API_KEY']) delete env[name];
    // Only the port is laid over the defaults (the tests run side by side); nothing is in a file.
    const loaded = loadConfig({ home, env, overrides: { platforms: { web: { port: 0 } } } });
    expect(loaded.config.model.name).toBe('');
    const { running, url } = await startWebChatGateway(loaded, env);
    web.run.running = running;
    const gateway = running.gateway;

    const tab = (web.run.tab = await web.browser.newPage());
    const { page, errors } = tab;
    await page.goto(url);
    const setup = page.getByRole('region', { name: 'No model is configured' });
    await setup.waitFor();
    await page.getByLabel('Provider', { exact: true }).selectOption('custom');
    // Any OpenAI-compatible URL guesses no address: an empty field with an example.
    const baseUrl = page.getByLabel('Base URL', { exact: true });
    expect(await baseUrl.inputValue()).toBe('');
    expect(await baseUrl.getAttribute('placeholder')).toBe('http://host:port/v1');
    await baseUrl.fill(model.url);
    await page.getByLabel('API key', { exact: true }).fill(KEY);
    await page.getByRole('button', { name: 'Load models' }).click();
    await page.getByRole('status').filter({ hasText: '2 models listed' }).waitFor();
    // The Model is a free text field; the endpoint's list only suggests, and it is wide enough to read.
    const modelField = page.getByLabel('Model', { exact: true });
    expect(await modelField.evaluate((el) => el.tagName)).toBe('INPUT');
    const suggested = await page.locator('#setup-model-list option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    expect(suggested).toContain('fake-chat');
    expect((await modelField.boundingBox())!.width).toBeGreaterThan(400);
    await modelField.fill('fake-chat');
    await screenshot(page, 'web-settings-form-filled');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: fake-chat answers the next message.' }).waitFor();
    // The heading follows the state: a model is configured now.
    await page.getByRole('region', { name: 'Model settings' }).waitFor();
    expect(await page.getByRole('region', { name: 'No model is configured' }).count()).toBe(0);
    // The key field is emptied and the key is nowhere in the page.
    expect(await page.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain(KEY);

    await page.getByRole('button', { name: 'New thread' }).click();
    await sendMessage(page, 'hello from the form');
    // The form goes with the first message.
    await setup.waitFor({ state: 'hidden' });
    await page.locator('.msg.assistant', { hasText: 'echo: hello from the form' }).waitFor();
    await screenshot(page, 'web-settings-first-answer');

    // The same gateway answered, with the saved model and key.
    expect(running.gateway).toBe(gateway);
    const chat = model.requests.findLast((request) => JSON.stringify(request.body.messages).includes('hello from the form'));
    expect(chat?.body.model).toBe('fake-chat');
    expect(chat?.headers.authorization).toBe(`Bearer ${KEY}`);
    // What the form wrote: the key in .env (0600), the model in config.yaml.
    expect(readFileSync(join(home, '.env'), 'utf8')).toBe(`MODEL_API_KEY='${KEY}'\n`);
    expect(statSync(join(home, '.env')).mode & 0o777).toBe(0o600);
    const written = loadConfig({ home, loadEnv: false, env: {} }).config.model;
    expect(written).toMatchObject({ base_url: model.url, name: 'fake-chat', api_key_env: 'MODEL_API_KEY' });
    // The key is in no log line.
    const log = join(home, 'logs', 'agent.log');
    if (existsSync(log)) expect(readFileSync(log, 'utf8')).not.toContain(KEY);
    expect(errors).toEqual([]);
  });

  it('picks up an edited config.yaml while running: a new model answers the next message; a new port is named as needing a restart', async () => {
    const { model } = web;
    const home = (web.run.home = mkdtempSync(join(tmpdir(), 'hermes-web-settings-e2e-')));
    const env = envWithoutPlatformTokens({ MODEL_API_KEY: KEY });
    setConfigValues(join(home, 'config.yaml'), { 'model.base_url': model.url, 'model.name': 'fake-chat', 'model.api_key_env': 'MODEL_API_KEY', 'platforms.web.port': 0 });
    const printed: string[] = [];
    const { running, url } = await startWebChatGateway(loadConfig({ home, env }), env, printed);
    web.run.running = running;
    const tab = (web.run.tab = await web.browser.newPage());
    const { page, errors } = tab;
    await page.goto(url);
    await sendMessage(page, 'before the edit');
    await page.locator('.msg.assistant', { hasText: 'echo: before the edit' }).waitFor();

    // As `hermes config set` does it: the file is replaced.
    setConfigValues(join(home, 'config.yaml'), { 'model.name': 'fake-other', 'platforms.web.port': 8799 });
    await expect.poll(() => printed.join('\n'), { timeout: 20_000 }).toContain('hermes gateway: applied model.name');
    expect(printed.join('\n')).toContain('hermes gateway: changed platforms.web.port: restart the gateway for these');
    await sendMessage(page, 'after the edit');
    await page.locator('.msg.assistant', { hasText: 'echo: after the edit' }).waitFor();
    const chat = model.requests.findLast((request) => JSON.stringify(request.body.messages).includes('after the edit'));
    expect(chat?.body.model).toBe('fake-other');
    expect(errors).toEqual([]);
  });
});
