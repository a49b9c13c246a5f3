import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/cli/commands/gateway.js';
import { loadConfig, setConfigValues } from '../../../src/config/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';
import { webModel } from './web-model.js';

/*
 * A new user's first minutes: `hermes gateway` (what `npm start` runs) on a HERMES_HOME with
 * no config.yaml and no .env, the printed address in chromium, the settings form filled with
 * a fake OpenAI-compatible server's URL and key, then a message and its answer — with no
 * file edited by hand and the same gateway process throughout (no restart).
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
const skip = browserSkipReason() ?? (hasPython || process.env.CI === 'true' ? undefined : 'python3 is missing: web settings browser tests skipped');
if (skip) console.warn(skip);

const KEY = 'sk-e2e-settings-5f2a9c';

describe.skipIf(Boolean(skip))('web chat settings in a real browser: from a fresh HERMES_HOME to the first answer', { timeout: 120_000 }, () => {
  let model: FakeOpenAI;
  let browser: OpenBrowser;
  let home: string;
  let running: RunningGateway | undefined;
  let tab: BrowserPage | undefined;
  const printed: string[] = [];

  beforeAll(async () => {
    model = await startFakeOpenAI({ apiKey: KEY, listModels: ['fake-chat', 'fake-other'], fallback: webModel() });
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') {
      await screenshot(tab.page, `web-settings-FAILED-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
    }
    await tab?.page.close();
    tab = undefined;
    await running?.stop();
    running = undefined;
    if (home) rmSync(home, { recursive: true, force: true });
  });
  afterAll(async () => {
    await browser?.close();
    await model?.close();
  });

  it('fills the form with the fake server, saves, and the next message gets the model’s answer: no file edited, no restart', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-settings-e2e-'));
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_BOT_TOKEN', 'MODEL_API_KEY', 'OPENAI_API_KEY']) delete env[name];
    // Only the port is laid over the defaults (the tests run side by side); nothing is in a file.
    const loaded = loadConfig({ home, env, overrides: { platforms: { web: { port: 0 } } } });
    expect(loaded.config.model.name).toBe('');
    running = await startGateway(loaded, { env, print: (line) => printed.push(line) });
    const url = /web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+) /.exec(printed.join('\n'))?.[1];
    expect(url, printed.join('\n')).toBeDefined();
    const gateway = running.gateway;

    tab = await browser.newPage();
    const { page, errors } = tab;
    await page.goto(url!);
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
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('hello from the form');
    await input.press('Enter');
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
    home = mkdtempSync(join(tmpdir(), 'hermes-web-settings-e2e-'));
    const env: NodeJS.ProcessEnv = { ...process.env, MODEL_API_KEY: KEY };
    for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_BOT_TOKEN']) delete env[name];
    setConfigValues(join(home, 'config.yaml'), { 'model.base_url': model.url, 'model.name': 'fake-chat', 'model.api_key_env': 'MODEL_API_KEY', 'platforms.web.port': 0 });
    printed.length = 0;
    running = await startGateway(loadConfig({ home, env }), { env, print: (line) => printed.push(line) });
    const url = /web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+) /.exec(printed.join('\n'))?.[1];
    tab = await browser.newPage();
    const { page, errors } = tab;
    await page.goto(url!);
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('before the edit');
    await input.press('Enter');
    await page.locator('.msg.assistant', { hasText: 'echo: before the edit' }).waitFor();

    // As `hermes config set` does it: the file is replaced.
    setConfigValues(join(home, 'config.yaml'), { 'model.name': 'fake-other', 'platforms.web.port': 8799 });
    await expect.poll(() => printed.join('\n'), { timeout: 20_000 }).toContain('hermes gateway: applied model.name');
    expect(printed.join('\n')).toContain('hermes gateway: changed platforms.web.port: restart the gateway for these');
    await input.fill('after the edit');
    await input.press('Enter');
    await page.locator('.msg.assistant', { hasText: 'echo: after the edit' }).waitFor();
    const chat = model.requests.findLast((request) => JSON.stringify(request.body.messages).includes('after the edit'));
    expect(chat?.body.model).toBe('fake-other');
    expect(errors).toEqual([]);
  });
});
