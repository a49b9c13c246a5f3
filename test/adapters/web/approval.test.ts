import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter, type WebAdapter } from '../../../adapters/web/index.js';
import { TranscriptStore } from '../../../adapters/web/transcript.js';
import { Gateway, approvalQueueFor } from '../../../src/gateway/index.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';
import { FakeAgent, testConfig, until } from '../../gateway/helpers.js';

/*
 * The web chat's approval bubble in headless chromium, against the real web server and the
 * real gateway: the buttons send the presser's answer, and the bubble then says how it ended.
 */
const skip = browserSkipReason();
if (skip) console.warn(skip);

describe.skipIf(Boolean(skip))('web chat approvals (browser, real gateway)', { timeout: 60_000 }, () => {
  let home: string;
  let browser: OpenBrowser;
  let gateway: Gateway | undefined;
  let adapter: WebAdapter;
  let tab: BrowserPage | undefined;
  let answers: boolean[] = [];

  async function start(timeoutSeconds = 300): Promise<void> {
    answers = [];
    const agent = new FakeAgent(async (options) => {
      const approved = await options.requestApproval!({ command: 'rm -rf build', reason: 'recursive delete' });
      answers.push(approved);
      return { text: approved ? 'ran **rm -rf build**' : 'did not run it', status: 'completed' };
    });
    const config = testConfig({ model: { name: 'fake-model' }, approvals: { timeout: timeoutSeconds }, platforms: { web: { port: 0 } } });
    adapter = createWebAdapter({ config, paths: { home, config: join(home, 'config.yaml'), env: join(home, '.env') } });
    gateway = new Gateway({ agent, config, env: {}, approvals: approvalQueueFor(config, { rulesFile: join(home, 'approvals.yaml') }) });
    gateway.register(adapter);
    expect((await gateway.start()).started).toEqual(['web']);
  }

  async function ask(text: string): Promise<BrowserPage> {
    tab = await browser.newPage();
    // The printed address: ?token= logs the browser in.
    await tab.page.goto(adapter.openUrl!);
    await tab.page.getByRole('button', { name: 'New thread' }).click();
    const input = tab.page.getByRole('textbox', { name: 'Message' });
    await input.fill(text);
    await input.press('Enter');
    await tab.page.locator('.approval[data-state="waiting"]').waitFor();
    return tab;
  }

  beforeAll(async () => {
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') await screenshot(tab.page, `web-approval-FAILED-${context.task.name.slice(0, 30).replace(/\W+/g, '-')}`).catch(() => undefined);
    await tab?.page.close();
    tab = undefined;
    await gateway?.stop();
    gateway = undefined;
    rmSync(home, { recursive: true, force: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the request with four buttons; This session approves and the bubble says so without buttons', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-approval-'));
    await start();
    const { page, errors } = await ask('clean the build');
    const bubble = page.locator('.approval');
    expect((await bubble.locator('pre code').textContent())?.trim()).toBe('rm -rf build');
    expect(await bubble.textContent()).toContain('Approval needed (recursive delete):');
    const answersGroup = bubble.getByRole('group', { name: 'Answer the approval request' });
    expect(await answersGroup.getByRole('button').allTextContents()).toEqual(['Approve once', 'This session', 'Always', 'Deny']);
    await screenshot(page, 'web-approval-waiting');

    await bubble.getByRole('button', { name: 'This session' }).click();
    await page.locator('.approval[data-state="settled"]').waitFor();
    expect(await bubble.textContent()).toContain('✅ Approved by You for this session.');
    expect(await answersGroup.count()).toBe(0);
    await page.locator('.msg.assistant strong', { hasText: 'rm -rf build' }).waitFor();
    expect(answers).toEqual([true]);
    // The press went as the page's own message; the gateway's reply follows it.
    expect(await page.locator('.msg.user').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('/approve session')]));
    await screenshot(page, 'web-approval-settled');
    expect(errors).toEqual([]);
  });

  it('Deny refuses; a request nobody answers says it timed out', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-approval-'));
    await start(2);
    const { page, errors } = await ask('clean the build');
    await page.locator('.approval').getByRole('button', { name: 'Deny' }).click();
    await page.locator('.approval[data-state="settled"]').waitFor();
    expect(await page.locator('.approval').textContent()).toContain('❌ Denied by You.');
    await until(() => answers.length === 1, 'the answer');
    expect(answers).toEqual([false]);

    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('try once more');
    await input.press('Enter');
    await page.locator('.approval[data-state="waiting"]').waitFor();
    await page.locator('.approval[data-state="settled"]').nth(1).waitFor({ timeout: 15_000 });
    expect(await page.locator('.approval').nth(1).textContent()).toContain('⏱ Refused: nobody answered within 2 s.');
    expect(answers).toEqual([false, false]);
    expect(errors).toEqual([]);
  });

  it('a request still waiting when the gateway stops is settled as cancelled', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-approval-'));
    await start();
    await ask('clean the build');
    await gateway!.stop();
    // What the page shows when it opens the thread again.
    const store = new TranscriptStore(join(home, 'web', 'threads'));
    const [thread] = store.listThreads();
    const approval = store.entries(thread.id).find((entry) => entry.kind === 'approval');
    expect(approval).toMatchObject({ kind: 'approval', state: 'settled' });
    expect(approval?.kind === 'approval' ? approval.text : '').toMatch(/\n\n⏹ Cancelled: the turn ended before an answer\.$/);
  });
});

describe('web chat transcript', () => {
  it('shows a request an earlier run left waiting (a crash) as cancelled, without buttons', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermes-web-transcript-'));
    try {
      const before = new TranscriptStore(dir);
      const id = before.createThread();
      before.put(id, { kind: 'approval', id: 'p-1', at: Date.now(), text: '⚠️ Approval needed (recursive delete):\n```\nrm -rf build\n```', state: 'waiting' });
      const after = new TranscriptStore(dir);
      const [entry] = after.entries(id);
      expect(entry).toMatchObject({ kind: 'approval', state: 'settled' });
      expect(entry.kind === 'approval' ? entry.text : '').toMatch(/\n\n⏹ Cancelled: the gateway stopped before an answer\.$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
