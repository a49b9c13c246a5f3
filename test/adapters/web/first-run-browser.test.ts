import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type BrowserContext } from 'playwright-core';
import { packageRoot } from '../../../src/shared/package-root.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type RecordedRequest } from '../../fakes/openai-server.js';
import { words } from '../../fakes/stream-harness.js';
import { CHROMIUM, browserSkipReason, screenshot } from '../../helpers/browser.js';
import { gate, sendMessage, spawnWebChatGateway } from '../../helpers/web-chat.js';

/*
 * A first run as a new user makes it, in chromium: a fresh HERMES_HOME whose config names only
 * the model (no model.stream, no terminal.cwd), the built gateway started from inside a git
 * clone. The first answer streams; the chart and uploads/ the agent makes are shown in the
 * page and land in HERMES_HOME/workspace, not in the clone (git status clean); after the
 * browser is closed and started again on the same profile the chat opens without the token,
 * and a profile without the cookie gets the page that asks for it.
 */
const cli = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const skip = browserSkipReason() ?? (existsSync(cli) || process.env.CI === 'true' ? undefined : 'dist/ is not built (npm run build): first-run browser test skipped');
if (skip) console.warn(skip);

/** A 1×1 PNG, as the agent's chart. */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

describe.skipIf(Boolean(skip))('a first run in chromium: streaming, the working folder and a login that lasts', { timeout: 180_000 }, () => {
  let model: FakeOpenAI;
  let home: string;
  let clone: string;
  let gateway: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;
  const contexts: BrowserContext[] = [];
  const answer = `${words(120, 'first')} and that is the whole first answer.`;
  const ending = 'that is the whole first answer.';
  const held = gate();

  function reply(request: RecordedRequest): FakeReply {
    const messages = request.body.messages;
    const last = messages[messages.length - 1];
    if (last.role === 'tool') {
      const calls = JSON.stringify(messages.filter((m) => m.role === 'assistant').at(-1));
      if (calls.includes('execute_code')) return { toolCalls: [{ name: 'send_file', arguments: { path: 'chart.png', caption: 'the chart' } }] };
      return { text: 'Here is the chart.' };
    }
    const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    if (text.includes('[CHART]')) {
      const code = [
        'import base64, os',
        `open("chart.png", "wb").write(base64.b64decode(${JSON.stringify(PNG_BASE64)}))`,
        'os.makedirs("uploads", exist_ok=True)',
        'open("uploads/data.csv", "w").write("a,b\\n1,2\\n")',
        'print("made", os.path.join(os.getcwd(), "chart.png"))',
      ].join('\n');
      return { toolCalls: [{ name: 'execute_code', arguments: { code } }] };
    }
    // Streamed only when the request asks (no server-side default): the first answer is held mid-way.
    return { text: answer, chunkChars: 10, hold: { at: 10, until: held.until } };
  }

  async function launch(profile: string): Promise<BrowserContext> {
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1200, height: 800 } });
    contexts.push(context);
    return context;
  }

  beforeAll(async () => {
    model = await startFakeOpenAI({ fallback: { respond: (request) => reply(request) } });
    home = mkdtempSync(join(tmpdir(), 'hermes-first-run-'));
    writeFileSync(join(home, 'config.yaml'), `model:\n  base_url: ${model.url}\n  name: fake-model\n  max_retries: 0\nplatforms:\n  web:\n    port: 0\n`);
    clone = mkdtempSync(join(tmpdir(), 'hermes-first-run-clone-'));
    writeFileSync(join(clone, 'README.md'), '# a clone\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: clone, encoding: 'utf8' });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'first');
  });
  afterAll(async () => {
    held.open();
    for (const context of contexts) await context.close().catch(() => undefined);
    if (gateway?.pid && gateway.exitCode === null) {
      gateway.kill('SIGTERM');
      await exited;
    }
    await model?.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(clone, { recursive: true, force: true });
  });

  it('streams the first answer, keeps the agent\'s files out of the clone, and keeps the login across a browser restart', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: home };
    for (const name of Object.keys(env)) if (/^(SLACK|DISCORD|TELEGRAM)_/.test(name) || name === 'HERMES_CONFIG') delete env[name];
    const spawned = spawnWebChatGateway(process.execPath, [cli, 'gateway'], { cwd: clone, env });
    const proc = (gateway = spawned.child);
    exited = spawned.exited;
    const url = await spawned.url;
    const bare = new URL(url);
    bare.search = '';

    const profile = mkdtempSync(join(tmpdir(), 'hermes-first-run-profile-'));
    let context = await launch(profile);
    let page = context.pages()[0] ?? (await context.newPage());
    await page.goto(url);
    await page.getByRole('button', { name: 'New thread' }).click();
    await sendMessage(page, 'hello');

    // The first answer streams: part of it is on the page while the rest is held at the server.
    const bubble = page.locator('.msg.assistant').last();
    await bubble.filter({ hasText: answer.slice(0, 40) }).waitFor();
    expect(await bubble.innerText()).not.toContain(ending);
    expect(model.requests[0]!.body.stream).toBe(true);
    held.open();
    await page.locator('.msg.assistant', { hasText: ending }).waitFor();

    await sendMessage(page, '[CHART] draw it');
    await page.locator('.msg.assistant', { hasText: 'Here is the chart.' }).waitFor();
    await page.getByRole('link', { name: 'Download chart.png' }).waitFor();
    await screenshot(page, 'web-first-run-chart');
    expect(existsSync(join(home, 'workspace', 'chart.png'))).toBe(true);
    expect(existsSync(join(home, 'workspace', 'uploads', 'data.csv'))).toBe(true);
    expect(execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: clone, encoding: 'utf8' })).toBe('');

    // The browser closes and starts again on the same profile: the bare address opens the chat.
    await context.close();
    context = await launch(profile);
    page = context.pages()[0] ?? (await context.newPage());
    const reopened = await page.goto(bare.href);
    expect(reopened?.status()).toBe(200);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();

    // A browser without the cookie gets a page asking for the token, and the token logs it in.
    const stranger = await launch(mkdtempSync(join(tmpdir(), 'hermes-first-run-other-')));
    const other = stranger.pages()[0] ?? (await stranger.newPage());
    const asked = await other.goto(bare.href);
    expect(asked?.status()).toBe(401);
    await other.getByLabel('Token').fill(new URL(url).searchParams.get('token')!);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.getByRole('textbox', { name: 'Message' }).waitFor();
    expect(proc.exitCode).toBeNull();
  });
});
