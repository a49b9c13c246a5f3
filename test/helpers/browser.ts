import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium; CI installs it (`.ci/run`), a developer may need `apt-get install chromium`. */
export const CHROMIUM = process.env.HERMES_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined. Under CI=true they always run (and fail loudly). */
export function browserSkipReason(): string | undefined {
  if (process.env.CI === 'true' || existsSync(CHROMIUM)) return undefined;
  return `${CHROMIUM} is missing (apt-get install -y chromium): browser tests skipped`;
}

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

export interface BrowserPage {
  page: Page;
  /** Console errors and uncaught page errors (a CSP or Trusted Types violation shows here). */
  errors: string[];
}

export interface OpenBrowser {
  context: BrowserContext;
  /** A new tab that records its errors; pages share the profile (cookies are per host, not per port). */
  newPage(viewport?: { width: number; height: number }): Promise<BrowserPage>;
  close(): Promise<void>;
}

/** Starts headless chromium with a fresh profile (`--user-data-dir`); one per test file is enough. */
export async function openBrowser(): Promise<OpenBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'hermes-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 800 },
  });
  const blank = context.pages();
  return {
    context,
    async newPage(viewport) {
      const page = await context.newPage();
      for (const first of blank.splice(0)) await first.close();
      if (viewport) await page.setViewportSize(viewport);
      const errors: string[] = [];
      page.on('console', (message) => {
        // For "Failed to load resource" the location is the resource: name it.
        const where = message.location().url;
        if (message.type() === 'error') errors.push(where ? `${message.text()} (${where})` : message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      return { page, errors };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot as test-results/<name>.png (git-ignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = join(process.cwd(), 'test-results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
