import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebAdapter, type WebAdapter } from '../../../adapters/web/index.js';
import { defaultConfig } from '../../../src/config/index.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';
import { fakeDispatch } from './fake-dispatch.js';
import { layoutProblems } from './layout-facts.js';

/*
 * A screenshot of each state of the page (saved under test-results/), and the layout facts
 * that make it sound, measured in chromium: regions and controls inside the viewport and
 * apart, no sideways scrolling, readable contrast. Pixel-exact golden images would break
 * with every chromium or font update; these facts break only when the layout does.
 */
const skip = browserSkipReason();
if (skip) console.warn(skip);

const WIDE = { width: 1200, height: 800 };
const NARROW = { width: 380, height: 720 };

describe.skipIf(Boolean(skip))('web chat layout: each page state, screenshotted and measured', { timeout: 60_000 }, () => {
  let home: string;
  let adapter: WebAdapter;
  let browser: OpenBrowser;
  let tab: BrowserPage | undefined;

  async function start(modelName = 'fake-model'): Promise<void> {
    const config = defaultConfig();
    config.platforms.web.port = 0;
    config.model.name = modelName;
    adapter = createWebAdapter({ config, env: {}, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') } });
    await adapter.start(fakeDispatch(adapter).handler, new AbortController().signal);
  }

  async function open(viewport = WIDE, colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserPage> {
    tab = await browser.newPage(viewport);
    await tab.page.emulateMedia({ colorScheme });
    await tab.page.goto(adapter.openUrl!);
    await tab.page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
    return tab;
  }

  /** Sends a message and waits for the stand-in's answer (a script, its output, markdown with code). */
  async function converse(page: BrowserPage['page'], text = 'count to 42'): Promise<void> {
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill(text);
    await input.press('Enter');
    await page.locator('.msg.assistant', { hasText: text }).waitFor();
    await page.locator('#busy:not(.on)').waitFor({ state: 'attached' });
  }

  async function expectSound(page: BrowserPage['page'], state: string): Promise<void> {
    await screenshot(page, `web-layout-${state}`);
    expect(await layoutProblems(page), state).toEqual([]);
  }

  beforeAll(async () => {
    browser = await openBrowser();
  });
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-layout-'));
  });
  afterEach(async () => {
    await tab?.page.close();
    tab = undefined;
    await adapter?.stop();
    rmSync(home, { recursive: true, force: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('no model: the settings form fits, its fields apart and readable', async () => {
    await start('');
    const { page, errors } = await open();
    await page.getByRole('region', { name: 'No model is configured' }).waitFor();
    await page.getByLabel('Model', { exact: true }).waitFor();
    await expectSound(page, 'no-model');
    expect(errors).toEqual([]);
  });

  it('no model on a narrow screen, in dark: the form stacks its fields and stays readable', async () => {
    await start('');
    const { page, errors } = await open(NARROW, 'dark');
    await page.getByRole('region', { name: 'No model is configured' }).waitFor();
    await page.getByLabel('Model', { exact: true }).waitFor();
    await expectSound(page, 'no-model-narrow-dark');
    expect(errors).toEqual([]);
  });

  it('working: Working…, the elapsed time and Stop in the header, a running script in the thread', async () => {
    await start();
    const { page, errors } = await open();
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('sleep for a while');
    await input.press('Enter');
    await page.locator('.tool[data-status="running"]').waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await page.locator('#elapsed', { hasText: /\d+ s/ }).waitFor();
    await expectSound(page, 'working');
    expect(errors).toEqual([]);
  });

  it('streaming: an answer still being written, its code not yet coloured', async () => {
    await start();
    const { page, errors } = await open();
    await converse(page);
    const threadId = new URL(page.url()).searchParams.get('thread')!;
    const stream = adapter.streaming.open({ threadKey: `web:${threadId}`, threadId });
    await stream.update('Here is a longer answer, still arriving:\n\n```python\nfor i in range(3):\n    print(i)\n```\n\nand more');
    const streaming = page.locator('.msg.assistant.streaming');
    await streaming.waitFor();
    expect(await streaming.locator('.hljs').count()).toBe(0);
    await expectSound(page, 'streaming');
    await stream.finish('Here is the whole answer:\n\n```python\nprint(1)\n```');
    await page.locator('.msg.assistant:not(.streaming) .hljs', { hasText: 'print(1)' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('error: with the gateway gone the page says so and shows Reconnecting…, not "Failed to fetch"', async () => {
    await start();
    const { page, errors } = await open();
    await converse(page);
    await adapter.stop();
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('are you there?');
    await input.press('Enter');
    const error = page.getByRole('alert');
    await error.waitFor();
    expect(await error.textContent()).toContain('The gateway is not reachable');
    expect(await error.textContent()).not.toContain('Failed to fetch');
    await page.locator('#connection[data-state="offline"]', { hasText: 'Reconnecting…' }).waitFor();
    await expectSound(page, 'error');
    // The browser reports the refused connections itself; the page's own code raised nothing.
    expect(errors.filter((line) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(line))).toEqual([]);
  });

  it('narrow screen: the thread, the header controls and the open thread list fit a phone', async () => {
    await start();
    const { page, errors } = await open(NARROW);
    await converse(page);
    await expectSound(page, 'narrow');
    await page.getByRole('button', { name: 'Threads' }).click();
    await page.locator('.sidebar.open').waitFor();
    // The list slides in (a 0.15 s transition): measure where it comes to rest, not mid-slide.
    await page.evaluate(() => Promise.all(document.getAnimations().filter((animation) => animation instanceof CSSTransition).map((animation) => animation.finished)));
    await expectSound(page, 'narrow-threads');
    expect(errors).toEqual([]);
  });

  it('dark: the thread with its code and tool output, readable on a dark background', async () => {
    await start();
    const { page, errors } = await open(WIDE, 'dark');
    await converse(page);
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(22, 24, 29)');
    await page.locator('.tool-input summary').click();
    await expectSound(page, 'dark');
    expect(errors).toEqual([]);
  });

  it('the facts catch a broken layout: a composer wider than the screen, a header over the thread, unreadable text', async () => {
    await start();
    const { page } = await open();
    await converse(page);
    expect(await layoutProblems(page)).toEqual([]);
    await page.evaluate(() => {
      document.querySelector<HTMLElement>('.composer')!.style.width = '150vw';
      const head = document.querySelector<HTMLElement>('.chat-head')!;
      head.style.position = 'relative';
      head.style.top = '120px';
      document.querySelector<HTMLElement>('.msg.user .body')!.style.color = 'rgb(220, 226, 255)';
    });
    const problems = await layoutProblems(page);
    await screenshot(page, 'web-layout-broken-on-purpose');
    expect(problems.join('\n')).toMatch(/the page scrolls sideways/);
    expect(problems.join('\n')).toMatch(/div\.composer|form#composer\.composer.*leaves the viewport/);
    expect(problems.join('\n')).toMatch(/header\.chat-head and div#messages\.messages overlap/);
    expect(problems.join('\n')).toMatch(/low contrast .* for "count to 42"/);
  });
});
