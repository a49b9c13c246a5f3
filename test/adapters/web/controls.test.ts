import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebAdapter, type WebAdapter } from '../../../adapters/web/index.js';
import { defaultConfig } from '../../../src/config/index.js';
import type { InboundMessage } from '../../../src/gateway/types.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';
import { fakeDispatch } from './fake-dispatch.js';

/*
 * The page's controls in chromium against the real web server and the stand-in dispatch:
 * Stop, Copy, the connection indicator across a server restart, and the thread list's
 * rename, delete and search; New thread leaves no empty thread behind.
 */
const skip = browserSkipReason();
if (skip) console.warn(skip);

describe.skipIf(Boolean(skip))('web chat controls (browser, stand-in dispatch)', { timeout: 60_000 }, () => {
  let home: string;
  let adapter: WebAdapter;
  let browser: OpenBrowser;
  let tab: BrowserPage | undefined;
  let seen: InboundMessage[] = [];

  async function start(port = 0): Promise<void> {
    const config = defaultConfig();
    config.platforms.web.port = port;
    config.model.name = 'fake-model';
    adapter = createWebAdapter({ config, env: {}, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') } });
    const dispatch = fakeDispatch(adapter);
    seen = dispatch.seen;
    await adapter.start(dispatch.handler, new AbortController().signal);
  }

  async function open(): Promise<BrowserPage> {
    tab = await browser.newPage();
    await tab.page.goto(adapter.openUrl!);
    await tab.page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
    return tab;
  }

  async function send(page: BrowserPage['page'], text: string): Promise<void> {
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill(text);
    await input.press('Enter');
  }

  beforeAll(async () => {
    browser = await openBrowser();
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-controls-'));
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') {
      await screenshot(tab.page, `web-controls-FAILED-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
    }
    await tab?.page.close();
    tab = undefined;
    await adapter?.stop();
    rmSync(home, { recursive: true, force: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('Stop, shown with the elapsed time while the agent works, sends /stop and the running script ends', async () => {
    await start();
    const { page, errors } = await open();
    const stop = page.getByRole('button', { name: 'Stop' });
    expect(await stop.isHidden()).toBe(true);
    await send(page, 'sleep for a while');
    await page.locator('.tool[data-status="running"]').waitFor();
    await stop.waitFor();
    expect(await page.locator('#elapsed').textContent()).toMatch(/^\d+ s$/);
    await stop.click();
    await page.locator('.tool[data-status="interrupted"]').waitFor();
    expect(seen.map((message) => message.text)).toEqual(['sleep for a while', '/stop']);
    await page.locator('#busy:not(.on)').waitFor({ state: 'attached' });
    await stop.waitFor({ state: 'hidden' });
    expect(await page.locator('#elapsed').isHidden()).toBe(true);
    expect(errors).toEqual([]);
  });

  it('Copy puts a code block’s text on the clipboard, and the code is coloured', async () => {
    await start();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(adapter.url!).origin });
    const { page, errors } = await open();
    await send(page, 'count to 42');
    const block = page.locator('.msg.assistant .code-block');
    await block.waitFor();
    expect(await block.locator('code.hljs span').count()).toBeGreaterThan(0);
    await block.getByRole('button', { name: 'Copy code' }).click();
    await block.getByRole('button', { name: 'Copy code' }).filter({ hasText: 'Copied' }).waitFor();
    expect((await page.evaluate(() => navigator.clipboard.readText())).trim()).toBe('print(6 * 7)');
    expect(errors).toEqual([]);
  });

  it('the connection indicator says Reconnecting… while the server is down and Connected once it is back; the thread carries on', async () => {
    await start();
    const { page, errors } = await open();
    await send(page, 'first message');
    await page.locator('.msg.assistant', { hasText: 'first message' }).waitFor();
    const indicator = page.locator('#connection');
    expect(await indicator.textContent()).toBe('Connected');
    const port = Number(new URL(adapter.url!).port);

    await adapter.stop();
    await page.locator('#connection[data-state="offline"]', { hasText: 'Reconnecting…' }).waitFor();
    await screenshot(page, 'web-controls-reconnecting');
    await start(port);
    await page.locator('#connection[data-state="online"]', { hasText: 'Connected' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.msg.assistant', { hasText: 'first message' }).count()).toBe(1);
    await send(page, 'after the restart');
    await page.locator('.msg.assistant', { hasText: 'after the restart' }).waitFor();
    expect(await page.getByRole('alert').isHidden()).toBe(true);
    // Only the browser's own reports of the refused reconnects, never the page's code.
    expect(errors.filter((line) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(line))).toEqual([]);
  });

  it('renames, finds and deletes threads; New thread leaves no empty thread behind', async () => {
    await start();
    const { page, errors } = await open();
    const threadsDir = join(home, 'web', 'threads');
    for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'New thread' }).click();
    expect(await page.locator('.thread-link').count()).toBe(0);
    // Nothing was made on the server for the drafts.
    expect(existsSync(threadsDir) ? readdirSync(threadsDir) : []).toEqual([]);

    await send(page, 'plot the sales figures');
    await page.locator('.msg.assistant', { hasText: 'plot the sales' }).waitFor();
    await page.getByRole('button', { name: 'New thread' }).click();
    await send(page, 'count python files');
    await page.locator('.msg.assistant', { hasText: 'count python files' }).waitFor();
    await page.locator('.thread-link').nth(1).waitFor();
    expect(readdirSync(threadsDir).filter((name) => name.endsWith('.jsonl'))).toHaveLength(2);

    page.once('dialog', (dialog) => void dialog.accept('Python census'));
    await page.getByRole('button', { name: 'Rename thread' }).click();
    await page.locator('.thread-link[aria-current="page"]', { hasText: 'Python census' }).waitFor();
    expect(await page.locator('#thread-title').textContent()).toBe('Python census');

    const search = page.getByRole('searchbox', { name: 'Search threads' });
    await search.fill('sales');
    await expect.poll(() => page.locator('.thread-link').allTextContents()).toEqual(['plot the sales figures']);
    await search.fill('census');
    await expect.poll(() => page.locator('.thread-link').allTextContents()).toEqual(['Python census']);
    await search.fill('nothing like this');
    await page.getByText('No thread contains “nothing like this”.').waitFor();
    await search.fill('');
    await expect.poll(() => page.locator('.thread-link').count()).toBe(2);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete thread' }).click();
    await expect.poll(() => page.locator('.thread-link').allTextContents()).toEqual(['plot the sales figures']);
    expect(await page.locator('#thread-title').textContent()).toBe('New thread');
    expect(readdirSync(threadsDir).filter((name) => name.endsWith('.jsonl'))).toHaveLength(1);
    await screenshot(page, 'web-controls-threads');
    expect(errors).toEqual([]);
  });

  it('the Settings button opens the model settings when a model is configured, and closes them again', async () => {
    await start();
    const { page, errors } = await open();
    const settings = page.getByRole('button', { name: 'Settings', exact: true });
    const region = page.getByRole('region', { name: 'Model settings' });
    expect(await region.isHidden()).toBe(true);
    await settings.click();
    await region.waitFor();
    expect(await settings.getAttribute('aria-expanded')).toBe('true');
    expect(await region.textContent()).toContain('The agent uses fake-model');
    for (const name of ['Provider', 'Base URL', 'API key', 'Model']) await region.getByLabel(name, { exact: true }).waitFor();
    // The key is never shown: the field starts empty.
    expect(await region.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    await settings.click();
    await region.waitFor({ state: 'hidden' });
    expect(await settings.getAttribute('aria-expanded')).toBe('false');
    expect(errors).toEqual([]);
  });

  it('draws its icons as SVG: the page chrome has no emoji that need an emoji font', async () => {
    await start();
    const { page, errors } = await open();
    await send(page, 'count to 42');
    await page.locator('.msg.assistant').waitFor();
    const chrome = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.sidebar, .chat-head, .composer, .tool-head')).map((el) => (el as HTMLElement).innerText).join('\n'),
    );
    expect(chrome).not.toMatch(/\p{Extended_Pictographic}/u);
    for (const name of ['New thread', 'Attach', 'Settings', 'Rename thread', 'Delete thread']) {
      expect(await page.getByRole('button', { name, exact: true }).locator('svg').count(), name).toBe(1);
    }
    expect(await page.locator('.tool-head .tool-icon svg').count()).toBe(1);
    expect(errors).toEqual([]);
  });
});
