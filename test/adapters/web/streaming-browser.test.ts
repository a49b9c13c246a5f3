import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadConfig } from '../../../src/config/index.js';
import { startFakeOpenAI, type FakeReply, type RecordedRequest } from '../../fakes/openai-server.js';
import { words } from '../../fakes/stream-harness.js';
import { screenshot, type BrowserPage } from '../../helpers/browser.js';
import { envWithoutPlatformTokens, gate, sendMessage as send, startWebChatGateway, webChatBrowserSkipReason, webChatPerTest } from '../../helpers/web-chat.js';

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
const skip = webChatBrowserSkipReason('web chat streaming browser tests');

const KEY_VAR = 'HERMES_WEB_STREAM_KEY';
process.env[KEY_VAR] = 'sk-fake';

describe.skipIf(Boolean(skip))('web chat streaming in chromium: words, script lines and the interrupt notice as they happen', { timeout: 120_000 }, () => {
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

  const chat = webChatPerTest({
    screenshotPrefix: 'web-stream',
    startModel: () => startFakeOpenAI({ stream: true, fallback: { respond: (request) => reply(request) } }),
    // A held answer or script lets go, so the gateway can stop.
    beforeStop: () => {
      wordsGate.open();
      if (goFile) writeFileSync(goFile, '');
    },
  });

  async function startHermes(home: string): Promise<string> {
    const env = envWithoutPlatformTokens();
    const loaded = loadConfig({
      home,
      loadEnv: false,
      env,
      overrides: {
        model: { base_url: chat.model.url, name: 'fake-model', api_key_env: KEY_VAR, stream: true },
        code_execution: { timeout: 120, kill_grace: 1 },
        platforms: { web: { port: 0 } },
      },
    });
    const { running, url } = await startWebChatGateway(loaded, env);
    chat.run.running = running;
    return url;
  }

  async function openChat(): Promise<BrowserPage> {
    const home = (chat.run.home = mkdtempSync(join(tmpdir(), 'hermes-web-stream-')));
    goFile = join(home, 'go');
    const url = await startHermes(home);
    const tab = (chat.run.tab = await chat.browser.newPage());
    await tab.page.goto(url);
    await tab.page.getByRole('button', { name: 'New thread' }).click();
    return tab;
  }

  /** The entries of the open thread, in the order the page shows them, by their kind (the data-id prefix). */
  const entryKinds = (page: Page) =>
    page.locator('[data-id]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-id')!.split('-')[0]));

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
    await chat.run.running!.gateway.idle();
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
    await chat.run.running!.gateway.idle();
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
