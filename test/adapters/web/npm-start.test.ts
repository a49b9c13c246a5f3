import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/shared/package-root.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';
import { webModel } from './web-model.js';

/*
 * `npm start` as a person runs it, as a real process (the built CLI; `npm test` builds
 * first): the printed address in chromium, the settings form filled with a fake
 * OpenAI-compatible server, a message, its answer. The only file written beforehand puts the
 * web chat on a free port and the agent's working folder in a temp folder (tests run side by
 * side); the model, its key and its address come from the form alone.
 */
const built = existsSync(join(packageRoot(), 'dist', 'src', 'cli', 'main.js'));
const hasNpm = spawnSync('npm', ['--version']).status === 0;
const skip = browserSkipReason() ?? (process.env.CI === 'true' || (built && hasNpm) ? undefined : 'dist/ is not built (npm run build) or npm is missing: npm start browser test skipped');
if (skip) console.warn(skip);

const KEY = 'sk-npm-start-7c41d0';

describe.skipIf(Boolean(skip))('npm start, then the page: from nothing configured to the first answer', { timeout: 120_000 }, () => {
  let model: FakeOpenAI;
  let browser: OpenBrowser;
  let home: string | undefined;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;
  let tab: BrowserPage | undefined;

  beforeAll(async () => {
    model = await startFakeOpenAI({ apiKey: KEY, listModels: ['fake-chat'], fallback: webModel() });
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') await screenshot(tab.page, 'web-npm-start-FAILED').catch(() => undefined);
    await tab?.page.close();
    tab = undefined;
    if (child?.pid && child.exitCode === null) {
      // npm runs the gateway as its own child: the whole group of our child goes.
      process.kill(-child.pid, 'SIGTERM');
      const killer = setTimeout(() => child?.pid && process.kill(-child.pid, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    }
    child = exited = undefined;
    if (home) rmSync(home, { recursive: true, force: true });
  });
  afterAll(async () => {
    await browser?.close();
    await model?.close();
  });

  it('fills the form, saves, sends a message and gets the answer, from the same running process', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-npm-start-'));
    const work = join(home, 'work');
    mkdirSync(work);
    writeFileSync(join(home, 'config.yaml'), `platforms:\n  web:\n    port: 0\nterminal:\n  cwd: ${JSON.stringify(work)}\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: home };
    for (const name of Object.keys(env)) {
      if (/^(SLACK|DISCORD|TELEGRAM)_/.test(name) || /_API_KEY$/.test(name) || name === 'HERMES_CONFIG') delete env[name];
    }
    let output = '';
    let found: (url: string) => void = () => {};
    const printed = new Promise<string>((resolve) => (found = resolve));
    const proc = spawn('npm', ['start', '--silent'], { cwd: packageRoot(), env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child = proc;
    exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    const hear = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+) /.exec(output)?.[1];
      if (url) found(url);
    };
    proc.stdout!.on('data', hear);
    proc.stderr!.on('data', hear);
    const url = await Promise.race([printed, exited.then((code) => Promise.reject(new Error(`npm start exited (${code}) before printing the address:\n${output}`)))]);
    const pid = proc.pid;

    tab = await browser.newPage();
    const { page, errors } = tab;
    await page.goto(url);
    await page.getByRole('region', { name: 'No model is configured' }).waitFor();
    await page.getByLabel('Provider', { exact: true }).selectOption('custom');
    await page.getByLabel('Base URL', { exact: true }).fill(model.url);
    await page.getByLabel('API key', { exact: true }).fill(KEY);
    await page.getByRole('button', { name: 'Load models' }).click();
    await page.getByRole('status').filter({ hasText: '1 model listed' }).waitFor();
    await page.getByLabel('Model', { exact: true }).fill('fake-chat');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved: fake-chat answers the next message.' }).waitFor();

    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('hello after npm start');
    await input.press('Enter');
    await page.locator('.msg.assistant', { hasText: 'echo: hello after npm start' }).waitFor();
    await screenshot(page, 'web-npm-start-first-answer');

    // No restart: the process that printed the address is the one that answered.
    expect(proc.pid).toBe(pid);
    expect(proc.exitCode).toBeNull();
    const chat = model.requests.findLast((request) => JSON.stringify(request.body.messages).includes('hello after npm start'));
    expect(chat?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(readFileSync(join(home, '.env'), 'utf8')).toBe(`MODEL_API_KEY='${KEY}'\n`);
    expect(output).not.toContain(KEY);
    expect(errors).toEqual([]);
  });
});
