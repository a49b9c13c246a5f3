import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/cli/commands/gateway.js';
import { loadConfig } from '../../../src/config/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';
import { webModel } from './web-model.js';

/*
 * The whole path a person takes: `hermes gateway` (startGateway) with the web chat on an
 * ephemeral port, the real gateway, agent and execute_code (real Python), the fake model
 * server, and headless chromium on the printed address.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
const skip = browserSkipReason() ?? (hasPython || process.env.CI === 'true' ? undefined : 'python3 is missing: web chat full-stack tests skipped');
if (skip) console.warn(skip);

const KEY_VAR = 'HERMES_WEB_E2E_KEY';
process.env[KEY_VAR] = 'sk-fake';

// Generous bounds: each test starts the whole gateway and a browser tab on a shared 2-core machine.
describe.skipIf(Boolean(skip))('web chat end to end: hermes gateway, the agent, execute_code and the fake model in chromium', { timeout: 120_000 }, () => {
  let model: FakeOpenAI;
  let browser: OpenBrowser;
  let home: string;
  let running: RunningGateway | undefined;
  let tab: BrowserPage | undefined;
  let printed: string[] = [];

  /** Starts the gateway the way `npm start` does and returns the address it printed (with its ?token=). */
  async function startHermes(modelName = 'fake-model', scriptTimeout = 120): Promise<string> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_BOT_TOKEN']) delete env[name];
    const loaded = loadConfig({
      home,
      loadEnv: false,
      env,
      overrides: {
        model: { base_url: model.url, name: modelName, api_key_env: KEY_VAR },
        code_execution: { timeout: scriptTimeout, kill_grace: 1 },
        platforms: { web: { port: 0 } },
      },
    });
    printed = [];
    running = await startGateway(loaded, { env, print: (line) => printed.push(line) });
    expect(running.report.started).toContain('web');
    const url = /web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+) /.exec(printed.join('\n'))?.[1];
    expect(url, printed.join('\n')).toBeDefined();
    return url!;
  }

  async function send(page: BrowserPage['page'], text: string): Promise<void> {
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill(text);
    await input.press('Enter');
  }

  beforeAll(async () => {
    model = await startFakeOpenAI({ fallback: webModel() });
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') {
      await screenshot(tab.page, `web-e2e-FAILED-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
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

  async function openPage(url: string): Promise<BrowserPage> {
    tab = await browser.newPage();
    await tab.page.goto(url);
    return tab;
  }

  it('runs a script the model writes: the page shows execute_code, its output, then the answer', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-e2e-'));
    const { page, errors } = await openPage(await startHermes());
    await page.getByRole('button', { name: 'New thread' }).click();
    await send(page, 'run a script [RUN]');

    const tool = page.locator('.tool[data-status="success"]');
    await tool.waitFor();
    expect(await tool.locator('.tool-name').textContent()).toBe('execute_code');
    expect(await tool.locator('.tool-input code').textContent()).toContain('print(6 * 7)');
    expect(await tool.locator('.tool-output pre').textContent()).toBe('hello from python\n42\n');
    const answer = page.locator('.msg.assistant');
    await answer.waitFor();
    expect(await answer.locator('strong').textContent()).toBe('finished');
    expect(await answer.locator('pre code').textContent()).toContain('hello from python');
    expect(await answer.count()).toBe(1);
    await page.locator('#busy:not(.on)').waitFor({ state: 'attached' });
    await screenshot(page, 'web-e2e-execute-code');
    expect(errors).toEqual([]);
  });

  it('a message sent while a script sleeps interrupts it: the page shows the interrupted turn, then the new answer', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-e2e-'));
    const { page, errors } = await openPage(await startHermes());
    await page.getByRole('button', { name: 'New thread' }).click();
    await send(page, 'take a nap [SLOW]');
    await page.locator('.tool[data-status="running"]').waitFor();
    await send(page, 'never mind, say hi');

    await page.locator('.tool[data-status="interrupted"]').waitFor();
    await page.locator('.notice', { hasText: 'Turn interrupted' }).waitFor();
    // The echo model repeats what the agent gave it: the new message (after the agent's note on the interruption).
    await page.locator('.msg.assistant', { hasText: 'never mind, say hi' }).waitFor();
    const interrupted = page.locator('.tool[data-status="interrupted"]');
    expect(await interrupted.locator('.badge').textContent()).toBe('interrupted');
    expect(await interrupted.textContent()).toContain('user sent a new message');
    // The interrupted turn has no answer of its own: the only answer is to the second message.
    expect(await page.locator('.msg.assistant').count()).toBe(1);
    const kinds = await page.locator('.entry').evaluateAll((nodes) => nodes.map((node) => node.className.split(' ').slice(1, 3).join(' ')));
    // The notice belongs to the interrupted turn: above the message that interrupted it.
    expect(kinds).toEqual(['msg user', 'tool status-interrupted', 'notice tone-warning', 'msg user', 'msg assistant']);
    await screenshot(page, 'web-e2e-interrupted');
    expect(errors).toEqual([]);
  });

  it('shows a script that runs past code_execution.timeout as timed out', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-e2e-'));
    const { page, errors } = await openPage(await startHermes('fake-model', 3));
    await page.getByRole('button', { name: 'New thread' }).click();
    await send(page, 'oversleep [TIMEOUT]');
    const tool = page.locator('.tool[data-status="timeout"]');
    await tool.waitFor();
    expect(await tool.locator('.badge').textContent()).toBe('timed out');
    expect(await tool.locator('.tool-output pre').textContent()).toContain('about to oversleep');
    await page.locator('.msg.assistant').waitFor();
    await screenshot(page, 'web-e2e-timeout');
    expect(errors).toEqual([]);
  });

  it('keeps the thread after a reload and a gateway restart, and the agent remembers it', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-e2e-'));
    const { page, errors } = await openPage(await startHermes());
    await page.getByRole('button', { name: 'New thread' }).click();
    await send(page, 'remember the word pelican [RUN]');
    await page.locator('.msg.assistant').waitFor();
    const search = new URL(page.url()).search;
    const threadId = new URLSearchParams(search).get('thread');

    await page.reload();
    await page.locator('.messages[data-ready="true"] .msg.assistant').waitFor();
    expect(await page.locator('.tool[data-status="success"]').count()).toBe(1);

    await running!.stop();
    running = undefined;
    const url = await startHermes();
    await page.goto(`${url}&${search.slice(1)}`);
    expect(new URL(page.url()).search).toBe(search);
    await page.locator('.messages[data-ready="true"] .msg.assistant').waitFor();
    errors.length = 0; // the old page's event stream broke when the gateway stopped
    expect(await page.locator('.msg.user .body').textContent()).toBe('remember the word pelican [RUN]');
    expect(await page.locator('.tool[data-status="success"] .tool-output pre').textContent()).toContain('42');

    await send(page, 'what was the word?');
    await page.locator('.msg.assistant', { hasText: 'echo: what was the word?' }).waitFor();
    const last = model.requests.findLast((request) => JSON.stringify(request.body.messages).includes('what was the word?'));
    const history = JSON.stringify(last?.body.messages);
    expect(history).toContain('remember the word pelican');
    expect(threadId).toMatch(/^[0-9a-f]+$/);
    await screenshot(page, 'web-e2e-history-after-restart');
    expect(errors).toEqual([]);
  });

  it('shows a message with <script> as text, and the model echoing it runs nothing', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-e2e-'));
    const { page, errors } = await openPage(await startHermes());
    await page.getByRole('button', { name: 'New thread' }).click();
    const attack = '<script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2"> hi';
    await send(page, attack);
    const answer = page.locator('.msg.assistant');
    await answer.waitFor();
    expect(await page.locator('.msg.user .body').textContent()).toBe(attack);
    expect(await answer.textContent()).toContain('<script>window.__pwned = 1</script>');
    expect(await page.locator('.messages script, .messages img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await screenshot(page, 'web-e2e-script-as-text');
    expect(errors).toEqual([]);
  });

  it('with no model configured, the page says so and the agent answers with what to set, its settings fenced', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-e2e-'));
    const { page, errors } = await openPage(await startHermes(''));
    await page.getByRole('region', { name: 'No model is configured' }).waitFor();
    await send(page, 'hello?');
    await page.locator('.msg.assistant', { hasText: 'model.name' }).waitFor();
    // The settings in the reply are fenced: a code block with its lines, not a flattened paragraph.
    expect(await page.locator('.msg.assistant pre code').textContent()).toContain('model:\n  base_url: https://api.openai.com/v1');
    await screenshot(page, 'web-e2e-no-model');
    expect(errors).toEqual([]);
  });
});
