import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { printedPng, userText } from '../fakes/files-model.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../helpers/browser.js';
import { hasPython, startFilesGateway, type FilesGateway } from './files-helpers.js';

/*
 * The web chat's files in headless chromium against `hermes gateway` (real agent, real
 * execute_code, the files model): upload with the button, drop and paste, the script's
 * picture inline, its download, and what the server refuses to render.
 */
const skip = browserSkipReason() ?? (hasPython || process.env.CI === 'true' ? undefined : 'python3 is missing: web chat file tests skipped');
if (skip) console.warn(skip);

const CSV = Buffer.from('item,amount\napples,12\npears,30\nplums,18\n');

describe.skipIf(Boolean(skip))('web chat files in a real browser', { timeout: 120_000 }, () => {
  let browser: OpenBrowser;
  let gateway: FilesGateway | undefined;
  let tab: BrowserPage | undefined;

  beforeAll(async () => {
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') await screenshot(tab.page, `web-files-FAILED-${context.task.name.slice(0, 30).replace(/\W+/g, '-')}`).catch(() => undefined);
    await tab?.page.close();
    tab = undefined;
    await gateway?.stop();
    gateway = undefined;
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function open(maxInboundMb = 20): Promise<BrowserPage> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_BOT_TOKEN']) delete env[name];
    gateway = await startFilesGateway('web', { port: 0 }, env, { backend: 'local', keyVar: 'HERMES_WEB_FILES_KEY', maxInboundMb });
    const url = /web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+) /.exec(gateway.printed.join('\n'))?.[1];
    expect(url, gateway.printed.join('\n')).toBeDefined();
    tab = await browser.newPage();
    await tab.page.goto(url!);
    await tab.page.locator('body[data-ready="true"]').waitFor();
    return tab;
  }

  it('a CSV uploaded with the button is read by the script; its PNG shows inline and downloads with the same bytes', async () => {
    const { page, errors } = await open();
    await page.locator('#file-input').setInputFiles({ name: 'sales-2026-11.csv', mimeType: 'text/csv', buffer: CSV });
    await page.locator('#pending .chip:not(.uploading)', { hasText: 'sales-2026-11.csv — 40 B' }).waitFor();
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('plot the totals');
    await input.press('Enter');

    await page.locator('.msg.user .chip', { hasText: 'sales-2026-11.csv' }).waitFor();
    const picture = page.locator('.entry.file img');
    await picture.waitFor();
    await page.waitForFunction(() => (document.querySelector('.entry.file img') as HTMLImageElement | null)?.naturalWidth !== 0);
    expect(await page.locator('.entry.file .caption').textContent()).toBe('total 60');
    await page.locator('.msg.assistant', { hasText: 'done:' }).waitFor();
    expect(userText(gateway!.model.requests[0])).toBe('plot the totals\n[attached: uploads/sales-2026-11.csv — 40 B, text/csv]');
    expect(readFileSync(join(gateway!.workspace(), 'uploads', 'sales-2026-11.csv')).equals(CSV)).toBe(true);

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.entry.file a.download').click()]);
    expect(download.suggestedFilename()).toBe('chart.png');
    const saved = readFileSync((await download.path())!);
    expect(saved.equals(printedPng(gateway!.model.requests)!)).toBe(true);
    await screenshot(page, 'web-files-chart');
    expect(errors).toEqual([]);
  });

  it('files dropped on the conversation and an image pasted into the box are attached; a message of files only starts a turn', async () => {
    const { page, errors } = await open();
    await page.getByRole('button', { name: 'New thread' }).click();
    await page.evaluate(() => {
      const dropped = new DataTransfer();
      dropped.items.add(new File(['dropped text'], 'dropped.txt', { type: 'text/plain' }));
      document.querySelector('main.chat')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dropped, bubbles: true, cancelable: true }));
      const pasted = new DataTransfer();
      pasted.items.add(new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10])], 'image.png', { type: 'image/png' }));
      document.querySelector('#input')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: pasted, bubbles: true, cancelable: true }));
    });
    await page.locator('#pending .chip:not(.uploading)').nth(1).waitFor();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.msg.assistant', { hasText: 'echo:' }).waitFor();
    const text = userText(gateway!.model.requests[0]);
    expect(text.split('\n').sort()).toEqual(['[attached: uploads/dropped.txt — 12 B, text/plain]', '[attached: uploads/image.png — 8 B, image/png]']);
    expect(await page.locator('#pending .chip').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('an upload over files.max_inbound_mb is refused with the limit; SVG and HTML the agent sends are downloads, never rendered', async () => {
    const { page } = await open(1);
    await page.getByRole('button', { name: 'New thread' }).click();
    await page.locator('#file-input').setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(1536 * 1024, 1) });
    await page.locator('#error', { hasText: 'big.bin' }).waitFor();
    expect(await page.locator('#error').textContent()).toBe('"big.bin" is 1.5 MB, over the limit of 1.0 MB (files.max_inbound_mb); it was not sent.');
    expect(await page.locator('#pending .chip').count()).toBe(0);

    const workspace = gateway!.workspace();
    writeFileSync(join(workspace, 'evil.svg'), '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>');
    writeFileSync(join(workspace, 'evil.html'), '<script>alert(3)</script>');
    const input = page.getByRole('textbox', { name: 'Message' });
    for (const name of ['evil.svg', 'evil.html']) {
      await input.fill(`send [SEND:${name}]`);
      await input.press('Enter');
      await page.locator('.entry.file', { hasText: name }).waitFor();
    }
    expect(await page.locator('.entry.file img').count()).toBe(0);
    for (const name of ['evil.svg', 'evil.html']) {
      const href = await page.locator('.entry.file', { hasText: name }).locator('a.download').getAttribute('href');
      const response = await page.request.get(new URL(href!, page.url()).href);
      expect(response.status()).toBe(200);
      const headers = response.headers();
      expect(headers['content-type']).toBe('application/octet-stream');
      expect(headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="${name}"`));
      expect(headers['x-content-type-options']).toBe('nosniff');
    }
    // Without the login the files are not served.
    const href = await page.locator('.entry.file a.download').first().getAttribute('href');
    const anonymous = await fetch(new URL(href!, page.url()));
    expect(anonymous.status).toBe(401);
  });
});
