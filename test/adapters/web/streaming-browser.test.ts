import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startGateway, type RunningGateway } from '../../../src/cli/commands/gateway.js';
import { loadConfig } from '../../../src/config/index.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type RecordedRequest } from '../../fakes/openai-server.js';
import { words } from '../../fakes/stream-harness.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from '../../helpers/browser.js';

/*
 * Streaming in a real browser: `hermes gateway` with the web chat and `model.stream: true`,
 * the real agent and execute_code, the fake model, headless chromium. The model holds its
 * answer (and the script holds its second line) until the test has seen the first part in
 * the page, so "before the end" is proven by order, not by timing. The page is read through
 * its DOM contract (roles, accessible names, data- attributes), not its class names:
 * entries carry `data-id` (`u-` the user's, `a-` the assistant's, `t-` tool calls, `n-`
 * notices), a tool card `data-status` and the name "Tool <name>: <status>", a warning notice
 * the role `note`.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
const skip = browserSkipReason() ?? (hasPython || process.env.CI === 'true' ? undefined : 'python3 is missing: web chat streaming browser tests skipped');
if (skip) console.warn(skip);

const KEY_VAR = 'HERMES_WEB_STREAM_KEY';
process.env[KEY_VAR] = 'sk-fake';

/** A promise and the function that settles it. */
function gate(): { until: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const until = new Promise<void>((resolve) => (open = resolve));
  return { until, open };
}

describe.skipIf(Boolean(skip))('web chat streaming in chromium: words, script lines and the interrupt notice as they happen', { timeout: 120_000 }, () => {
  let model: FakeOpenAI;
  let browser: OpenBrowser;
  let home: string;
  let running: RunningGateway | undefined;
  let tab: BrowserPage | undefined;
  /** The answer `[WORDS]` streams, held after its first chunks until `wordsGate` opens. */
  const answer = words(150, 'browser');
  let wordsGate = gate();
  let goFile = '';

  function reply(request: RecordedRequest): FakeReply {
    const messages = request.body.messages;
    const last = messages[messages.length - 1];
    if (last.role === 'tool') return { text: `The script said: ${String(last.content).slice(0, 200)}` };
    const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    if (text.includes('[WORDS]')) return { text: answer, chunkChars: 10, hold: { at: 12, until: wordsGate.until } };
    if (text.includes('[LINES]')) {
      // The script's text never holds the lines it prints, so a line on the card is its output.
      const code = `import os, time\nprint("first" + " line", flush=True)\nwhile not os.path.exists(${JSON.stringify(goFile)}):\n    time.sleep(0.05)\nprint("second" + " line", flush=True)\n`;
      return { toolCalls: [{ name: 'execute_code', arguments: { code } }] };
    }
    if (text.includes('[SLOW]')) return { toolCalls: [{ name: 'execute_code', arguments: { code: 'import time\nprint("napping", flush=True)\ntime.sleep(120)\n' } }] };
    return { text: `echo: ${text.split('\n').at(-1)}` };
  }

  async function startHermes(): Promise<string> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_BOT_TOKEN']) delete env[name];
    const loaded = loadConfig({
      home,
      loadEnv: false,
      env,
      overrides: {
        model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR, stream: true },
        code_execution: { timeout: 120, kill_grace: 1 },
        platforms: { web: { port: 0 } },
      },
    });
    const printed: string[] = [];
    running = await startGateway(loaded, { env, print: (line) => printed.push(line) });
    const url = /web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+) /.exec(printed.join('\n'))?.[1];
    expect(url, printed.join('\n')).toBeDefined();
    return url!;
  }

  async function openChat(): Promise<BrowserPage> {
    home = mkdtempSync(join(tmpdir(), 'hermes-web-stream-'));
    goFile = join(home, 'go');
    const url = await startHermes();
    tab = await browser.newPage();
    await tab.page.goto(url);
    await tab.page.getByRole('button', { name: 'New thread' }).click();
    return tab;
  }

  async function send(page: Page, text: string): Promise<void> {
    const input = page.getByRole('textbox', { name: 'Message' });
    await input.fill(text);
    await input.press('Enter');
  }

  /** The entries of the open thread, in the order the page shows them, by their kind (the data-id prefix). */
  const entryKinds = (page: Page) =>
    page.locator('[data-id]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-id')!.split('-')[0]));

  beforeAll(async () => {
    model = await startFakeOpenAI({ stream: true, fallback: { respond: (request) => reply(request) } });
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    if (tab && context.task.result?.state === 'fail') {
      await screenshot(tab.page, `web-stream-FAILED-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
    }
    await tab?.page.close();
    tab = undefined;
    wordsGate.open();
    if (goFile) writeFileSync(goFile, '');
    await running?.stop();
    running = undefined;
    if (home) rmSync(home, { recursive: true, force: true });
  });
  afterAll(async () => {
    await browser?.close();
    await model?.close();
  });

  it('the words appear in the page before the answer ends, in one entry that becomes the answer', async () => {
    wordsGate = gate();
    const { page, errors } = await openChat();
    await send(page, 'tell me a story [WORDS]');
    const streamed = page.locator('[data-id^="a-"]');
    // The model has written 12 chunks of 10 characters and holds the rest: that much is on screen.
    const soFar = answer.slice(0, 120).split(/\s+/).slice(0, -1).join(' ');
    const shown = async () => (await streamed.first().innerText()).replace(/\s+/g, ' ');
    await expect.poll(shown, { timeout: 30_000 }).toContain(soFar);
    expect(await shown()).not.toContain(answer.split('\n').at(-1));
    const id = await streamed.first().getAttribute('data-id');
    await screenshot(page, 'web-stream-words-so-far');
    wordsGate.open();
    await expect.poll(shown, { timeout: 30_000 }).toContain(answer.split('\n').at(-1));
    await running!.gateway.idle();
    // One assistant entry, the one that streamed, with the whole answer.
    expect(await streamed.count()).toBe(1);
    expect(await streamed.first().getAttribute('data-id')).toBe(id);
    expect(await shown()).toContain(answer.replace(/\s+/g, ' '));
    expect(errors).toEqual([]);
  });

  it('a script’s lines appear in its tool card while it runs', async () => {
    const { page, errors } = await openChat();
    await send(page, 'run it [LINES]');
    const card = page.getByRole('article', { name: /^Tool execute_code/ });
    await card.and(page.locator('[data-status="running"]')).filter({ hasText: 'first line' }).waitFor({ timeout: 60_000 });
    // Still running, and the second line is not there: the script waits for the go file.
    expect(await card.getAttribute('data-status')).toBe('running');
    expect(await card.textContent()).not.toContain('second line');
    await screenshot(page, 'web-stream-script-running');
    writeFileSync(goFile, '');
    await page.locator('[data-status="success"]').filter({ hasText: 'second line' }).waitFor({ timeout: 60_000 });
    await page.locator('[data-id^="a-"]').filter({ hasText: 'The script said' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('the interrupt notice sits under the interrupted turn, above the message that interrupted it, and the card says it once', async () => {
    const { page, errors } = await openChat();
    await send(page, 'take a nap [SLOW]');
    await page.locator('[data-status="running"]').filter({ hasText: 'napping' }).waitFor({ timeout: 60_000 });
    await send(page, 'never mind');
    await page.locator('[data-id^="a-"]').filter({ hasText: 'echo: never mind' }).waitFor({ timeout: 60_000 });
    const notice = page.getByRole('note').filter({ hasText: 'interrupted' });
    await notice.waitFor();
    await running!.gateway.idle();
    expect(await entryKinds(page)).toEqual(['u', 't', 'n', 'u', 'a']);
    const card = page.locator('[data-status="interrupted"]');
    expect((await card.textContent())?.split('[execution interrupted').length).toBe(2);
    await screenshot(page, 'web-stream-interrupted');
    // The same order after a reload.
    await page.reload();
    await page.locator('[data-ready="true"] [data-id^="a-"]').first().waitFor();
    expect(await entryKinds(page)).toEqual(['u', 't', 'n', 'u', 'a']);
    expect(errors).toEqual([]);
  });
});
