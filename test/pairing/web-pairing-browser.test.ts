import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { PairingStore } from '../../src/pairing/index.js';
import { stateLocationFrom } from '../../src/sessions/index.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';
import { screenshot } from '../helpers/browser.js';
import { envWithoutPlatformTokens, startWebChatGateway, webChatBrowserSkipReason, webChatPerTest } from '../helpers/web-chat.js';

const skip = webChatBrowserSkipReason('web pairing browser tests');
const KEY_VAR = 'HERMES_WEB_PAIRING_KEY';

/*
 * The owner's side of pairing in the web chat: `hermes gateway` with the web chat, strangers
 * waiting in the same state database (as a Telegram or Slack DM under dm_policy: pairing leaves
 * them), the Settings page in chromium listing them with platform, name and age, and a click
 * that approves one and refuses the other, read back from the store.
 */
describe.skipIf(Boolean(skip))('pairing from the web chat settings in a real browser', { timeout: 120_000 }, () => {
  const web = webChatPerTest({ screenshotPrefix: 'web-pairing', startModel: () => startFakeOpenAI({ fallback: { respond: () => ({ text: 'ok' }) } }) });

  it('lists the waiting strangers (platform, who, age) and approves one, refuses another; the store has it at once', async () => {
    const home = (web.run.home = mkdtempSync(join(tmpdir(), 'hermes-web-pairing-')));
    const env = envWithoutPlatformTokens({ [KEY_VAR]: 'sk-fake' });
    const loaded = loadConfig({
      home,
      env,
      loadEnv: false,
      overrides: { model: { base_url: web.model.url, name: 'fake-model', api_key_env: KEY_VAR }, platforms: { web: { port: 0 } } },
    });
    const { running, url } = await startWebChatGateway(loaded, env);
    web.run.running = running;
    // Another connection to the gateway's state database, as `hermes pairing` and other instances have.
    const store = PairingStore.open(stateLocationFrom(loaded.config, loaded.paths, env));
    try {
      const ada = store.request('telegram', { id: '1001', name: 'ada' });
      const bob = store.request('slack', { id: 'U2BOB', name: 'bob' });
      expect(ada.kind).toBe('issued');
      expect(bob.kind).toBe('issued');

      // A stranger on this machine without the login, and a page of another site, cannot approve themselves.
      const approveUrl = `${new URL(url).origin}/api/settings/pairing/approve`;
      const asStranger = { platform: 'telegram', userId: '1001' };
      const noLogin = await fetch(approveUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(asStranger) });
      expect(noLogin.status).toBe(401);
      const crossSite = await fetch(approveUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
        body: JSON.stringify(asStranger),
      });
      expect(crossSite.status).toBe(403);
      expect(store.isPaired('telegram', '1001')).toBe(false);
      expect(store.pending()).toHaveLength(2);

      const tab = (web.run.tab = await web.browser.newPage());
      const { page, errors } = tab;
      await page.goto(url);
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const panel = page.getByRole('region', { name: 'Pairing requests' });
      await panel.waitFor();
      const list = panel.getByRole('list', { name: 'Waiting to pair' });
      // By platform, then oldest first, as `hermes pairing list` shows them.
      await expect.poll(() => list.getByRole('listitem').allTextContents()).toEqual([
        expect.stringContaining('slack: bob (U2BOB), just now'),
        expect.stringContaining('telegram: ada (1001), just now'),
      ]);
      // The page is given no code: the owner decides by the person.
      const html = await page.content();
      for (const outcome of [ada, bob]) if (outcome.kind === 'issued') expect(html).not.toContain(outcome.code);

      await panel.getByRole('button', { name: 'Approve ada (1001) on telegram' }).click();
      await panel.getByText('ada (1001) on telegram may talk to the bot now.').waitFor();
      expect(store.isPaired('telegram', '1001')).toBe(true);
      await panel.getByRole('button', { name: 'Refuse bob (U2BOB) on slack' }).click();
      await panel.getByText('bob (U2BOB) on slack was refused.').waitFor();
      expect(store.isPaired('slack', 'U2BOB')).toBe(false);
      expect(store.pending()).toEqual([]);
      await expect.poll(() => list.getByRole('listitem').count()).toBe(0);
      await screenshot(page, 'web-pairing-answered');
      expect(errors).toEqual([]);
    } finally {
      store.close();
    }
  });
});
