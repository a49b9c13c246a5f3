import { afterEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { TelegramAdapter } from '../../adapters/telegram/index.js';
import { Gateway } from '../../src/gateway/index.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { FakeAgent, testConfig } from '../gateway/helpers.js';

const ADA = 1001; // asks
const BOB = 2002; // allowed, not an admin
const ROOT = 9009; // the admin, listed only in platforms.telegram.admins
const GROUP = -100600;

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('admins answer approvals: platforms.<name>.admins (fake Bot API, real gateway)', () => {
  it("a non-admin's press and /approve of Ada's request are refused with why, also when forged to look like the admin's; the listed admin's press is taken", async () => {
    const api = await new FakeTelegramApi().start();
    const answers: boolean[] = [];
    const agent = new FakeAgent(async (options) => {
      const approved = await options.requestApproval!({ command: 'rm -rf build', reason: 'recursive delete' });
      answers.push(approved);
      return { text: approved ? 'ran rm -rf build' : 'did not run it', status: 'completed' };
    });
    const config = testConfig({ platforms: { telegram: { admins: [String(ROOT)] } } });
    const gateway = new Gateway({ agent, config, env: { TELEGRAM_ALLOWED_USERS: `${ADA},${BOB},${ROOT}` } });
    gateway.register(new TelegramAdapter({ token: api.token, apiRoot: api.apiRoot, pollTimeoutSeconds: 2 }));
    expect((await gateway.start()).failed).toEqual([]);
    stop = async () => {
      await gateway.stop();
      await api.close();
    };
    const refusal = 'Only Ada or an admin can answer this request.';
    const refusals = () => api.sentTo(GROUP).filter((sent) => sent.text === refusal).length;

    api.injectMessage({ chatId: GROUP, chatType: 'supergroup', userId: ADA, firstName: 'Ada', text: '@hermes_test_bot clean up' });
    await api.waitFor(() => api.sentTo(GROUP).some((sent) => sent.text.startsWith('⚠️ Approval needed')), 'the approval request');
    const asked = api.sentTo(GROUP).find((sent) => sent.text.startsWith('⚠️ Approval needed'))!;
    // The button's own data, as the platform hands it back on a press.
    const approveOnce = (asked.reply_markup?.inline_keyboard ?? []).flat().find((button) => button.text === 'Approve once')?.callback_data ?? '';
    expect(approveOnce).not.toBe('');

    // Bob presses Approve under the name of the admin, and with callback data that claims to be the admin's.
    api.injectCallbackQuery({ messageId: asked.message_id, data: approveOnce, userId: BOB, firstName: 'Root' });
    await api.waitFor(() => refusals() >= 1, 'the refusal of the press');
    // A modified client can send any data: staleView lets the fake pass what the message has no button for.
    api.injectCallbackQuery({ messageId: asked.message_id, data: `${approveOnce}:as:${ROOT}`, userId: BOB, firstName: 'Root', staleView: true });
    // Bob types it, and names the admin in it.
    api.injectMessage({ chatId: GROUP, chatType: 'supergroup', userId: BOB, firstName: 'Root', text: `@hermes_test_bot /approve as ${ROOT}` });
    api.injectMessage({ chatId: GROUP, chatType: 'supergroup', userId: BOB, firstName: 'Root', text: '/approve@hermes_test_bot' });
    await api.waitFor(() => refusals() >= 2, 'the refusal of the typed /approve');
    await sleep(300);
    expect(answers).toEqual([]);
    // The forged data was not ours: the press was answered as a dead button.
    expect(api.callbackAnswers.some((answer) => answer.text === 'This button is no longer in use.')).toBe(true);

    api.injectCallbackQuery({ messageId: asked.message_id, data: approveOnce, userId: ROOT, firstName: 'Root' });
    await api.waitFor(() => answers.length === 1, 'the admin approval');
    expect(answers).toEqual([true]);
  }, 60_000);
});
