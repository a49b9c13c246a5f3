import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startGateway, type RunningGateway } from '../../../src/cli/commands/gateway.js';
import { loadConfig } from '../../../src/config/index.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type RecordedRequest } from '../../fakes/openai-server.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';

/*
 * Page states that used to go stale, in chromium against a real gateway: /stop leaves no
 * "You: /stop" bubble, a search that hides the open thread keeps its rename and delete
 * buttons, a no-model reply is not flagged as an error, and a page that lost the gateway
 * shows neither "Working…" nor Stop.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
const skip = browserSkipReason() ?? (hasPython || process.env.CI === 'true' ? undefined : 'python3 is missing: web chat stale-state browser tests skipped');
if (skip) console.warn(skip);

describe.skipIf(Boolean(skip))('web chat page states follow what is true', { timeout: 120_000 }, () => {
  let model: FakeOpenAI;
  let browser: OpenBrowser;
  let home: string | undefined;
  let running: RunningGateway | undefined;
  let tab: BrowserPage | undefined;

  function reply(request: RecordedRequest): FakeReply {
    const messages = request.body.messages;
    const last = messages[messages.length - 1];
    if (last.role === 'tool') return { text: 'The script ended.' };
    const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    if (text.includes('[SLOW]')) return { toolCalls: [{ name: 'execute_code', arguments: { code: 'import time\nprint("napping", flush=True)\ntime.sleep(120)\n' } }] };
    return { text: `echo: ${text.split('\n').at(-1)}` };
  }

  async function openChat(modelName = 'fake-model'): Promise<Page> {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-stale-'));
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_BOT_TOKEN']) delete env[name];
    const loaded = loadConfig({
      home,
      loadEnv: false,
      env,
      overrides: { model: { base_url: model.url, name: modelName, max_retries: 0 }, code_execution: { timeout: 120, kill_grace: 1 }, platforms: { web: { port: 0 } } },
    });
    const printed: string[] = [];
    running = await startGateway(loaded, { env, print: (line) => printed.push(line) });
    const url = /web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+) /.exec(printed.join('\n'))![1];
    tab = await browser.newPage();
    await tab.page.goto(url);
    await tab.page.getByRole('button', { name: 'New thread' }).click();
    return tab.page;
  }

  async function send(page: Page, text: string): Promise<void> {
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill(text);
    await input.press('Enter');
  }

  beforeAll(async () => {
    model = await startFakeOpenAI({ fallback: { respond: (request) => reply(request) } });
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') await screenshot(tab.page, `web-stale-FAILED-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
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

  it('Stop ends the turn and leaves no "/stop" bubble', async () => {
    const page = await openChat();
    await send(page, '[SLOW] nap');
    await page.locator('.tool-output, .entry', { hasText: 'napping' }).first().waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
    await page.locator('.notice', { hasText: 'interrupted' }).first().waitFor();
    await send(page, 'after the stop');
    await page.locator('.msg.assistant', { hasText: 'echo: after the stop' }).waitFor();
    const users = await page.locator('.msg.user').allInnerTexts();
    expect(users.some((text) => text.includes('[SLOW] nap'))).toBe(true);
    expect(users.filter((text) => text.includes('/stop'))).toEqual([]);
  });

  it('a search that hides the open thread keeps its rename and delete buttons', async () => {
    const page = await openChat();
    await send(page, 'zebra crossing');
    await page.locator('.msg.assistant', { hasText: 'echo: zebra crossing' }).waitFor();
    await page.getByRole('button', { name: 'Rename thread' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search threads' }).fill('no thread has this word qqq');
    await page.waitForFunction(() => document.querySelectorAll('a[data-thread]').length === 0);
    await page.getByRole('button', { name: 'Rename thread' }).waitFor();
    await page.getByRole('button', { name: 'Delete thread' }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept('renamed while hidden'));
    await page.getByRole('button', { name: 'Rename thread' }).click();
    await page.getByRole('searchbox', { name: 'Search threads' }).fill('');
    await page.locator('a[data-thread]', { hasText: 'renamed while hidden' }).waitFor();
  });

  it('a no-model reply is shown as the reply it is, not flagged as an error', async () => {
    const page = await openChat('');
    await send(page, 'hello?');
    await page.locator('.msg.assistant', { hasText: 'No model is configured' }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
    expect(await page.locator('.notice.tone-error').count()).toBe(0);
  });

  it('a page that lost the gateway while the agent worked shows neither "Working…" nor Stop', async () => {
    const page = await openChat();
    await send(page, '[SLOW] nap again');
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    // Nothing new reaches the gateway from the page, then the gateway goes away: its event stream ends.
    await page.route('**/*', (route) => route.abort());
    await running!.stop();
    running = undefined;
    await page.getByText('Reconnecting…').waitFor({ timeout: 30_000 });
    expect(await page.locator('#busy').innerText()).toBe('');
    expect(await page.getByRole('button', { name: 'Stop' }).isHidden()).toBe(true);
  });
});
