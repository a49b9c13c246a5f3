import { afterEach, describe, expect, it } from 'vitest';
import { checkTelegram } from '../../adapters/telegram/token-check.js';
import { loadConfig } from '../../src/config/index.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';

let api: FakeTelegramApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("doctor's Telegram check: privacy mode (getMe's can_read_all_group_messages)", () => {
  it('a bot with privacy mode on is ready, with a warning that names the fix', async () => {
    api = await new FakeTelegramApi().start();
    const { config } = loadConfig({ home: '/nonexistent-hermes-home', overrides: { platforms: { telegram: { api_root: api.apiRoot } } }, loadEnv: false, env: {} });
    const check = await checkTelegram(api.token, config, false);
    expect(check.ok).toBe(true);
    expect(check.warnings).toEqual([expect.stringContaining('privacy mode on')]);
    expect(check.warnings?.[0]).toContain('/setprivacy');
  });
});
