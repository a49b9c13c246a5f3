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

  /** The approval requests waiting in every thread, as the page's API lists them (with the page's login). */
  async function waitingRequests(page: BrowserPage['page']): Promise<Array<{ threadId: string; requestId: string }>> {
    return page.evaluate(async () => {
      const found: Array<{ threadId: string; requestId: string }> = [];
      const { threads } = (await (await fetch('/api/threads')).json()) as { threads: Array<{ id: string }> };
      for (const { id } of threads) {
        const { entries } = (await (await fetch(`/api/threads/${id}`)).json()) as { entries: Array<{ kind: string; state?: string; requestId?: string }> };
        for (const entry of entries) if (entry.kind === 'approval' && entry.state === 'waiting' && entry.requestId) found.push({ threadId: id, requestId: entry.requestId });
      }
      return found;
    });
  }

  /** Posts a press to a thread's approval endpoint from the page, as its buttons do. */
  async function post(page: BrowserPage['page'], threadId: string, data: string): Promise<{ status: number; body: string }> {
    return page.evaluate(
      async ([thread, press]) => {
        const response = await fetch(`/api/threads/${thread}/approval`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ data: press }) });
        return { status: response.status, body: await response.text() };
      },
      [threadId, data] as const,
    );
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
    // The press went as a typed answer, not as a `/approve` message from the page.
    expect(await page.locator('.msg.user').allTextContents()).toEqual([expect.stringContaining('clean the build')]);
    await screenshot(page, 'web-approval-settled');
    expect(errors).toEqual([]);
  });

  it('a press settles only its own request; a forged press for another request, or malformed data, is refused', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-approval-'));
    await start();
    const { page, errors } = await ask('first job');
    const [first] = await waitingRequests(page);
    // A second thread with its own request, open in the same tab.
    await page.getByRole('button', { name: 'New thread' }).click();
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill('second job');
    await input.press('Enter');
    await page.locator('.approval[data-state="waiting"]').waitFor();
    await expect.poll(async () => (await waitingRequests(page)).length, { timeout: 20_000 }).toBe(2);
    const second = (await waitingRequests(page)).find((request) => request.threadId !== first.threadId)!;
    expect(second.requestId).not.toBe(first.requestId);

    // Forged: the second thread's endpoint with the first thread's request id; the page's login is the same.
    const forged = await post(page, second.threadId, `hermes:approval:${first.requestId}:once`);
    expect(forged.status).toBe(409);
    expect(forged.body).toContain(`no approval request ${first.requestId} is waiting in this thread`);
    // A well-formed id that names no request, and data that is not a button's.
    expect((await post(page, second.threadId, 'hermes:approval:0123456789abcdef:always')).status).toBe(409);
    expect((await post(page, second.threadId, 'hermes:approval:nope:once')).status).toBe(400);
    expect((await post(page, second.threadId, '/approve')).status).toBe(400);
    expect(answers).toEqual([]);

    // The second thread's own button: it settles that request and no other.
    await page.locator('.approval').getByRole('button', { name: 'Approve once' }).click();
    await page.locator('.approval[data-state="settled"]').waitFor();
    await until(() => answers.length === 1, 'the answer');
    expect(answers).toEqual([true]);
    expect((await waitingRequests(page)).map((request) => request.requestId)).toEqual([first.requestId]);
    // Pressed again once settled: nothing is waiting under that id any more.
    expect((await post(page, second.threadId, `hermes:approval:${second.requestId}:deny`)).status).toBe(409);
    expect(answers).toEqual([true]);
    // The browser logs each refused press (409, 400) it was made to send; nothing else went wrong.
    expect(errors.filter((error) => !(/status of 4(00|09) /.test(error) && error.endsWith('/approval)')))).toEqual([]);
    expect(errors).toHaveLength(5);
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
