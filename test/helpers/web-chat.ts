import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Page } from 'playwright-core';
import { startGateway, type RunningGateway } from '../../src/cli/commands/gateway.js';
import type { loadConfig } from '../../src/config/index.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { browserSkipReason, openBrowser, screenshot, type BrowserPage, type OpenBrowser } from './browser.js';

/** The address the gateway prints for the web chat, with its `?token=`. */
const WEB_CHAT_URL = /web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+) /;

/** The web chat address in what a gateway printed, or undefined while it has not printed it. */
export function webChatUrlIn(output: string): string | undefined {
  return WEB_CHAT_URL.exec(output)?.[1];
}

/**
 * Why the web chat browser tests of `what` skip (no chromium, or no python3 for execute_code),
 * printed once, or undefined. Under CI=true nothing skips.
 */
export function webChatBrowserSkipReason(what: string): string | undefined {
  const hasPython = spawnSync('python3', ['--version']).status === 0;
  const skip = browserSkipReason() ?? (hasPython || process.env.CI === 'true' ? undefined : `python3 is missing: ${what} skipped`);
  if (skip) console.warn(skip);
  return skip;
}

/** This process's environment, `extra` laid over, without the chat platforms' tokens: only the web chat starts. */
export function envWithoutPlatformTokens(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['SLACK_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'TELEGRAM_BOT_TOKEN']) delete env[name];
  return env;
}

export interface StartedWebChat {
  running: RunningGateway;
  /** The address it printed, with its ?token=. */
  url: string;
}

/** Starts the gateway in this process as `hermes gateway` does and reads the web chat address it printed. */
export async function startWebChatGateway(
  loaded: ReturnType<typeof loadConfig>,
  env: NodeJS.ProcessEnv,
  printed: string[] = [],
): Promise<StartedWebChat> {
  const running = await startGateway(loaded, { env, print: (line) => printed.push(line) });
  const url = webChatUrlIn(printed.join('\n'));
  expect(url, printed.join('\n')).toBeDefined();
  return { running, url: url ?? '' };
}

export interface SpawnedGateway {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Resolves with the web chat address once printed; rejects if the process exits first. */
  url: Promise<string>;
  /** All it wrote so far, stdout and stderr. */
  output(): string;
}

/** Spawns a gateway process (`command args`) and listens for the web chat address it prints. */
export function spawnWebChatGateway(command: string, args: string[], options: SpawnOptions): SpawnedGateway {
  let output = '';
  let found: (url: string) => void = () => {};
  const printed = new Promise<string>((resolve) => (found = resolve));
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const hear = (chunk: Buffer) => {
    output += chunk.toString();
    const url = webChatUrlIn(output);
    if (url) found(url);
  };
  child.stdout?.on('data', hear);
  child.stderr?.on('data', hear);
  const url = Promise.race([printed, exited.then((code) => Promise.reject(new Error(`${command} exited (${code}) before printing the address:\n${output}`)))]);
  return { child, exited, url, output: () => output };
}

/** Types `text` into the message box and sends it with Enter, as a person does. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill(text);
  await input.press('Enter');
}

/** A promise and the function that settles it: a test holds a fake's answer until it opens. */
export function gate(): { until: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const until = new Promise<void>((resolve) => (open = resolve));
  return { until, open };
}

/** What one test started: the tests set these, the teardown ends them. */
export interface WebChatRun {
  home?: string;
  running?: RunningGateway;
  tab?: BrowserPage;
}

export interface WebChatPerTest {
  readonly model: FakeOpenAI;
  readonly browser: OpenBrowser;
  /** This test's gateway, HERMES_HOME and tab; emptied after each test. */
  run: WebChatRun;
}

/**
 * Call inside a describe: one fake model (`startModel`) and one chromium for the file; after
 * each test a screenshot named `<screenshotPrefix>-FAILED-…` when it failed, then its tab,
 * gateway and HERMES_HOME are gone (`beforeStop` first lets held answers go).
 */
export function webChatPerTest(options: { screenshotPrefix: string; startModel: () => Promise<FakeOpenAI>; beforeStop?: () => void }): WebChatPerTest {
  let model: FakeOpenAI | undefined;
  let browser: OpenBrowser | undefined;
  const fixture: WebChatPerTest = {
    get model() {
      if (!model) throw new Error('the fake model is not up: its beforeAll failed');
      return model;
    },
    get browser() {
      if (!browser) throw new Error('chromium is not up: its beforeAll failed');
      return browser;
    },
    run: {},
  };
  beforeAll(async () => {
    model = await options.startModel();
    browser = await openBrowser();
  });
  afterEach(async (context) => {
    const { tab, running, home } = fixture.run;
    fixture.run = {};
    if (tab && context.task.result?.state === 'fail') {
      await screenshot(tab.page, `${options.screenshotPrefix}-FAILED-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
    }
    await tab?.page.close();
    options.beforeStop?.();
    await running?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });
  afterAll(async () => {
    await browser?.close();
    await model?.close();
  });
  return fixture;
}
