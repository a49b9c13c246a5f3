import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter, type WebAdapter } from '../../../adapters/web/index.js';
import { defaultConfig } from '../../../src/config/index.js';
import { packageRoot } from '../../../src/shared/package-root.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';
import { fakeDispatch } from './fake-dispatch.js';

/*
 * The page in headless chromium against the real web server, with a stand-in dispatch that
 * emits the agent's events. The full stack (real gateway, agent and fake model) is in
 * full-stack.test.ts.
 */
const skip = browserSkipReason();
if (skip) console.warn(skip);

describe.skipIf(Boolean(skip))('web chat page (browser, stand-in dispatch)', { timeout: 60_000 }, () => {
  let home: string;
  let adapter: WebAdapter;
  let browser: OpenBrowser;
  let tab: BrowserPage | undefined;

  function startAdapter(modelName = 'fake-model', token = ''): Promise<void> {
    const config = defaultConfig();
    config.platforms.web.port = 0;
    config.platforms.web.token = token;
    config.model.name = modelName;
    adapter = createWebAdapter({ config, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') } });
    return adapter.start(fakeDispatch(adapter).handler, new AbortController().signal);
  }

  /** Opens the page by the address the gateway prints (with ?token=, which logs the browser in). */
  async function open(viewport?: { width: number; height: number }): Promise<BrowserPage> {
    tab = await browser.newPage(viewport);
    await tab.page.goto(adapter.openUrl!);
    return tab;
  }

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-page-'));
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') {
      await screenshot(tab.page, `web-page-FAILED-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
      console.warn(await tab.page.locator('.messages').innerText().catch(() => ''), tab.errors);
    }
    await tab?.page.close();
    tab = undefined;
    await adapter?.stop();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('shows tool activity, then the answer rendered as markdown, for a message sent with Enter', async () => {
    await startAdapter();
    const { page, errors } = await open();
    await page.getByRole('button', { name: 'New thread' }).click();
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('count to 42');
    await input.press('Shift+Enter');
    await input.pressSequentially('please');
    expect(await input.inputValue()).toBe('count to 42\nplease');
    await input.press('Enter');

    const tool = page.locator('.tool[data-status="success"]');
    await tool.waitFor();
    expect(await tool.locator('.tool-name').textContent()).toBe('execute_code');
    expect(await tool.locator('.tool-output pre').textContent()).toContain('hello from python');
    const answer = page.locator('.msg.assistant');
    await answer.waitFor();
    expect(await answer.locator('strong').textContent()).toBe('42');
    expect(await answer.locator('pre code').textContent()).toContain('print(6 * 7)');
    // The final text arrived as an event and through send(): shown once.
    expect(await answer.count()).toBe(1);
    expect(await input.inputValue()).toBe('');
    expect(await page.locator('.thread-link[aria-current="page"]').textContent()).toBe('count to 42 please');
    await screenshot(page, 'web-page-tool-and-answer');
    expect(errors).toEqual([]);
  });

  it('shows the interrupted script and turn, then the answer to the message sent while it ran', async () => {
    await startAdapter();
    const { page, errors } = await open();
    await page.getByRole('button', { name: 'New thread' }).click();
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('sleep for a while');
    await input.press('Enter');
    await page.locator('.tool[data-status="running"]').waitFor();
    await page.locator('#busy', { hasText: 'Working' }).waitFor();
    await input.fill('never mind, say hi');
    await input.press('Enter');

    await page.locator('.tool[data-status="interrupted"]').waitFor();
    await page.locator('.notice', { hasText: 'interrupted' }).waitFor();
    await page.locator('.msg.assistant', { hasText: 'never mind, say hi' }).waitFor();
    const kinds = await page.locator('.entry').evaluateAll((nodes) => nodes.map((node) => node.className.split(' ').slice(1).join(' ')));
    // The notice belongs to the interrupted turn: above the message that interrupted it.
    expect(kinds).toEqual(['msg user', 'tool status-interrupted', 'notice tone-warning', 'msg user', 'tool status-success', 'msg assistant']);
    await page.locator('#busy:not(.on)').waitFor({ state: 'attached' });
    await screenshot(page, 'web-page-interrupted');
    expect(errors).toEqual([]);
  });

  it('shows a message containing <script> as text, and runs nothing the model prints', async () => {
    await startAdapter();
    const { page, errors } = await open();
    await page.getByRole('button', { name: 'New thread' }).click();
    const attack = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
    await page.getByRole('textbox', { name: 'Message' }).fill(attack);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    // The stand-in model echoes the message inside inline code in its markdown answer.
    await page.locator('.msg.assistant').waitFor();
    expect(await page.locator('.msg.user .body').textContent()).toBe(attack);
    expect(await page.locator('.msg.assistant code').first().textContent()).toBe(attack);
    expect(await page.locator('.messages script, .messages img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await screenshot(page, 'web-page-script-as-text');
    expect(errors).toEqual([]);
  });

  it('shows the thread history after a reload and after a server restart', async () => {
    await startAdapter();
    const { page, errors } = await open();
    await page.getByRole('button', { name: 'New thread' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('remember me');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.locator('.msg.assistant').waitFor();
    const threadUrl = page.url();
    expect(threadUrl).toMatch(/\?thread=[0-9a-f]+$/);

    await page.reload();
    await page.locator('.messages[data-ready="true"] .msg.assistant').waitFor();
    expect(await page.locator('.msg.user .body').textContent()).toBe('remember me');
    expect(await page.locator('.tool[data-status="success"]').count()).toBe(1);

    await adapter.stop();
    await startAdapter();
    // Another port after the restart, so the printed address again (the token is the same one).
    await page.goto(`${adapter.openUrl!}&${new URL(threadUrl).search.slice(1)}`);
    expect(page.url()).toBe(adapter.url! + new URL(threadUrl).search);
    // The old page's event stream broke when the server stopped; those console errors are expected.
    errors.length = 0;
    await page.locator('.messages[data-ready="true"] .msg.assistant').waitFor();
    expect(await page.locator('.msg.user .body').textContent()).toBe('remember me');
    expect(await page.locator('.thread-link', { hasText: 'remember me' }).count()).toBe(1);
    await screenshot(page, 'web-page-history-after-restart');
    expect(errors).toEqual([]);
  });

  it('says when no model is configured and offers the settings form, with the same settings as files for each provider', async () => {
    await startAdapter('');
    const { page, errors } = await open();
    const setup = page.getByRole('region', { name: 'No model is configured' });
    await setup.waitFor();
    const text = await setup.textContent();
    expect(text).toContain(join(home, 'config.yaml'));
    expect(text).toContain(join(home, '.env'));
    for (const name of ['Provider', 'Base URL', 'API key', 'Model']) await page.getByLabel(name, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Save' }).waitFor();
    const provider = page.getByLabel('Provider', { exact: true });
    const snippets: Record<string, string> = {
      openai: 'base_url: https://api.openai.com/v1',
      openrouter: 'base_url: https://openrouter.ai/api/v1',
      ollama: 'base_url: http://127.0.0.1:11434/v1',
    };
    for (const [id, snippet] of Object.entries(snippets)) {
      await provider.selectOption(id);
      expect(await setup.locator('.setup-files pre').first().textContent()).toContain(snippet);
      expect(await page.getByLabel('Base URL', { exact: true }).inputValue()).toBe(snippet.slice('base_url: '.length));
    }
    // Ollama needs no key and its example model is the README's.
    expect(await setup.locator('.setup-files').textContent()).toContain('Ollama needs no key');
    const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
    const ollamaRow = /^\| Ollama \| `([^`]+)` \| `([^`]+)`.*\| none \|$/m.exec(readme);
    expect(ollamaRow, 'the README\'s model table has an Ollama row').not.toBeNull();
    expect(await setup.locator('.setup-files pre').first().textContent()).toBe(`model:\n  base_url: ${ollamaRow![1]}\n  name: ${ollamaRow![2]}\n  api_key_env: OLLAMA_API_KEY`);
    await screenshot(page, 'web-page-no-model');
    expect(errors).toEqual([]);
  });

  it('with a token, the address printed with ?token= opens the page, and the chat works through the cookie', async () => {
    await startAdapter('fake-model', 'tok-123');
    tab = await browser.newPage();
    const { page, errors } = tab;
    const denied = await page.goto(adapter.url!);
    expect(denied?.status()).toBe(401);
    await page.goto(adapter.openUrl!);
    expect(page.url()).not.toContain('tok-123');
    await page.getByRole('button', { name: 'New thread' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('behind a token');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.locator('.msg.assistant').waitFor();
    await screenshot(page, 'web-page-token');
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
  });

  it('on loopback with no token configured, the bare address is refused and the printed one opens the chat', async () => {
    await startAdapter();
    tab = await browser.newPage();
    const { page, errors } = tab;
    const denied = await page.goto(adapter.url!);
    expect(denied?.status()).toBe(401);
    expect(await page.textContent('body')).toContain('needs its token');
    await page.goto(adapter.openUrl!);
    expect(page.url()).toBe(adapter.url!);
    await page.getByRole('button', { name: 'New thread' }).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('count to 42');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.locator('.msg.assistant').waitFor();
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
  });

  it('works on a narrow screen by keyboard: the Threads button opens the list, Escape closes it', async () => {
    await startAdapter();
    const { page, errors } = await open({ width: 380, height: 720 });
    const toggle = page.getByRole('button', { name: 'Threads' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const newThread = page.getByRole('button', { name: 'New thread' });
    await newThread.focus();
    await page.keyboard.press('Enter');
    // The list closes once the new (draft) thread has opened, and the message box has the focus.
    await expect.poll(() => toggle.getAttribute('aria-expanded'), { timeout: 10_000 }).toBe('false');
    await page.keyboard.type('from the keyboard');
    await page.keyboard.press('Enter');
    await page.locator('.msg.assistant').waitFor();
    await toggle.click();
    await page.keyboard.press('Escape');
    await expect.poll(() => toggle.getAttribute('aria-expanded'), { timeout: 10_000 }).toBe('false');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(380);
    await screenshot(page, 'web-page-narrow');
    expect(errors).toEqual([]);
  });
});
