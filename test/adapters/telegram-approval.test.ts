import { afterEach, describe, expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram.js';
import { Gateway } from '../../src/gateway/index.js';
import { FakeTelegramApi, type SentTelegramMessage } from '../fakes/telegram-api.js';
import { FakeAgent, testConfig } from '../gateway/helpers.js';

const ADA = 1001;
const STRANGER = 3003;
const GROUP = -100500;
const KEYBOARD = {
  inline_keyboard: [
    [
      { text: 'Approve', callback_data: 'hermes:approve' },
      { text: 'Deny', callback_data: 'hermes:deny' },
    ],
  ],
};

let cleanup: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A gateway with the Telegram adapter on the fake Bot API and an agent that asks for approval of one command. */
async function setup(timeoutSeconds = 300) {
  const api = await new FakeTelegramApi().start();
  const answers: boolean[] = [];
  const agent = new FakeAgent(async (options) => {
    const approved = await options.requestApproval!({ command: 'rm -rf build', reason: 'recursive delete' });
    answers.push(approved);
    return { text: approved ? 'ran rm -rf build' : 'did not run it', status: 'completed' };
  });
  const adapter = new TelegramAdapter({ token: api.token, apiRoot: api.apiRoot, pollTimeoutSeconds: 2 });
  const gateway = new Gateway({ agent, config: testConfig({ approvals: { timeout: timeoutSeconds } }), env: { TELEGRAM_ALLOWED_USERS: String(ADA) } });
  gateway.register(adapter);
  const report = await gateway.start();
  expect(report.failed).toEqual([]);
  cleanup.push(async () => {
    await gateway.stop();
    await api.close();
  });
  /** Resolves with the approval request once the bot has sent it to the chat (and topic). */
  const request = async (chatId: number, threadId?: number): Promise<SentTelegramMessage> => {
    await api.waitFor(() => api.sentTo(chatId, threadId).some((sent) => sent.reply_markup), 'the approval request');
    return api.sentTo(chatId, threadId).find((sent) => sent.reply_markup)!;
  };
  /** The approval request message as it is now (edits included). */
  const current = (asked: SentTelegramMessage) => api.sent.find((sent) => sent.message_id === asked.message_id)!;
  return { api, agent, answers, request, current };
}

describe('Telegram approval buttons (fake Bot API, real gateway)', () => {
  it('sends the request with Approve and Deny buttons; a press of Approve is answered and lets the command run', async () => {
    const { api, answers, request, current } = await setup();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    expect(asked.text).toMatch(/Approval needed \(recursive delete\):\nrm -rf build/);
    expect(asked.reply_markup).toEqual(KEYBOARD);
    expect(answers).toEqual([]);

    const press = api.injectCallbackQuery({ messageId: asked.message_id, data: 'hermes:approve', userId: ADA });
    await api.waitFor(() => api.sentTo(ADA).some((sent) => sent.text === 'ran rm -rf build'), 'the turn to finish');
    expect(answers).toEqual([true]);
    expect(api.sentTo(ADA).map((sent) => sent.text)).toContain('Approved.');
    // The request now says how it ended, and its buttons are gone.
    expect(current(asked).text).toBe('⚠️ Approval needed (recursive delete):\nrm -rf build\n\n✅ Approved by Ada.');
    expect(current(asked).reply_markup).toBeUndefined();
    const pressId = (press.callback_query as { id: string }).id;
    expect(api.callbackAnswers.map((answer) => answer.callback_query_id)).toEqual([pressId]);
    expect(api.callsOf('getUpdates').some((call) => JSON.stringify(call.params.allowed_updates).includes('callback_query'))).toBe(true);
  });

  it('a press of Deny in a forum topic refuses the command in that topic\'s session', async () => {
    const { api, agent, answers, request, current } = await setup();
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', threadId: 7, text: `@${api.botUsername} clean the build` });
    const asked = await request(GROUP, 7);
    expect(asked.message_thread_id).toBe(7);
    expect(asked.reply_markup).toEqual(KEYBOARD);
    expect(asked.reply_to_message_id).toBeDefined();

    api.injectCallbackQuery({ messageId: asked.message_id, data: 'hermes:deny', userId: ADA });
    await api.waitFor(() => api.sentTo(GROUP, 7).some((sent) => sent.text === 'did not run it'), 'the turn to finish');
    expect(answers).toEqual([false]);
    expect(agent.turns.map((turn) => turn.options.sessionKey)).toEqual([`telegram:${GROUP}:7`]);
    expect(api.sentTo(GROUP, 7).map((sent) => sent.text)).toContain('Denied.');
    expect(current(asked).text).toMatch(/\n\n❌ Denied by Ada\.$/);
    expect(current(asked).reply_markup).toBeUndefined();
    expect(api.sentTo(GROUP).every((sent) => sent.message_thread_id === 7)).toBe(true);
    expect(api.callbackAnswers).toHaveLength(1);
  });

  it('a press by a user who is not allowed is answered but refused like their messages; the request still waits', async () => {
    const { api, answers, request } = await setup();
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} clean the build` });
    const asked = await request(GROUP);

    api.injectCallbackQuery({ messageId: asked.message_id, data: 'hermes:approve', userId: STRANGER, firstName: 'Eve' });
    await api.waitFor(() => api.sentTo(GROUP).some((sent) => sent.text.includes(String(STRANGER))), 'the refusal');
    expect(api.sentTo(GROUP).find((sent) => sent.text.includes(String(STRANGER)))!.text).toContain('TELEGRAM_ALLOWED_USERS');
    expect(api.callbackAnswers).toHaveLength(1);
    expect(answers).toEqual([]);
    expect(api.sentTo(GROUP).map((sent) => sent.text)).not.toContain('Approved.');

    api.injectCallbackQuery({ messageId: asked.message_id, data: 'hermes:deny', userId: ADA });
    await api.waitFor(() => api.sentTo(GROUP).some((sent) => sent.text === 'did not run it'), 'the turn to finish');
    expect(answers).toEqual([false]);
    expect(api.callbackAnswers).toHaveLength(2);
  });

  it('a press after the request was answered is still answered, and told nothing waits', async () => {
    const { api, answers, request } = await setup();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    api.injectCallbackQuery({ messageId: asked.message_id, data: 'hermes:approve', userId: ADA });
    await api.waitFor(() => api.sentTo(ADA).some((sent) => sent.text === 'ran rm -rf build'), 'the turn to finish');
    api.injectCallbackQuery({ messageId: asked.message_id, data: 'hermes:deny', userId: ADA, staleView: true });
    await api.waitFor(() => api.sentTo(ADA).some((sent) => sent.text === 'No command is waiting for approval.'), 'the late press');
    expect(answers).toEqual([true]);
    expect(api.callbackAnswers).toHaveLength(2);
  });

  it('a new message while a request waits cancels it: the turn is interrupted and the message says so without buttons', async () => {
    const { api, request, current } = await setup();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'never mind' });
    await api.waitFor(() => current(asked).reply_markup === undefined, 'the first request to be settled');
    expect(current(asked).text).toMatch(/\n\n⏹ Cancelled: the turn ended before an answer\.$/);
  });

  it('a request nobody answers is refused at the timeout, and its message says so without buttons', async () => {
    const { api, answers, request, current } = await setup(1);
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    await api.waitFor(() => api.sentTo(ADA).some((sent) => sent.text === 'did not run it'), 'the turn to finish');
    expect(answers).toEqual([false]);
    expect(current(asked).text).toMatch(/\n\n⏱ Refused: nobody answered within 1 s\.$/);
    expect(current(asked).reply_markup).toBeUndefined();
  });
});
