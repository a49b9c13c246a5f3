import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { TelegramAdapter } from '../../adapters/telegram/index.js';
import { Gateway, approvalQueueFor } from '../../src/gateway/index.js';
import { FakeTelegramApi, type SentTelegramMessage } from '../fakes/telegram-api.js';
import { FakeAgent, testConfig } from '../gateway/helpers.js';
import { tempDir } from '../helpers/tool-context.js';

const ADA = 1001;
const BOB = 2002;
const ROOT = 9009;
const STRANGER = 3003;
const GROUP = -100500;
/** The request id each approval message's buttons carry, by message id, as the bot sent them. */
const requestIds = new Map<number, string>();

/** The keyboard under the request with this id: the shared buttons in two rows. */
const keyboardFor = (id: string) => ({
  inline_keyboard: [
    [
      { text: 'Approve once', callback_data: `hermes:approval:${id}:once` },
      { text: 'This session', callback_data: `hermes:approval:${id}:session` },
    ],
    [
      { text: 'Always', callback_data: `hermes:approval:${id}:always` },
      { text: 'Deny', callback_data: `hermes:approval:${id}:deny` },
    ],
  ],
});

/** The data of one button of a request the bot sent. */
const dataOf = (asked: SentTelegramMessage, choice: 'once' | 'session' | 'always' | 'deny') => `hermes:approval:${requestIds.get(asked.message_id) ?? 'unknown'}:${choice}`;

let cleanup: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/**
 * The Telegram adapter on the fake Bot API with a real gateway and an agent that asks for
 * approval of one command per turn. Ada, Bob and Root are allowed; Root is an approvals admin.
 * `restart()` stops the gateway and starts a new one on the same HERMES_HOME (its approvals.yaml).
 */
async function setup(timeoutSeconds = 300) {
  const api = await new FakeTelegramApi().start();
  const answers: boolean[] = [];
  const rulesFile = join(tempDir('hermes-tg-approvals-'), 'approvals.yaml');
  const agent = new FakeAgent(async (options) => {
    const approved = await options.requestApproval!({ command: 'rm -rf build', reason: 'recursive delete' });
    answers.push(approved);
    return { text: approved ? 'ran rm -rf build' : 'did not run it', status: 'completed' };
  });
  let gateway: Gateway | undefined;
  const start = async () => {
    const config = testConfig({ approvals: { timeout: timeoutSeconds, admins: { telegram: [String(ROOT)] } } });
    gateway = new Gateway({ agent, config, env: { TELEGRAM_ALLOWED_USERS: `${ADA},${BOB},${ROOT}` }, approvals: approvalQueueFor(config, { rulesFile }) });
    gateway.register(new TelegramAdapter({ token: api.token, apiRoot: api.apiRoot, pollTimeoutSeconds: 2 }));
    const report = await gateway.start();
    expect(report.failed).toEqual([]);
  };
  await start();
  cleanup.push(async () => {
    await gateway?.stop();
    await api.close();
  });
  const restart = async () => {
    await gateway?.stop();
    await start();
  };
  /** The approval requests the bot has sent to the chat (and topic), oldest first. */
  const requests = (chatId: number, threadId?: number) => api.sentTo(chatId, threadId).filter((sent) => sent.text.startsWith('⚠️ Approval needed'));
  /** Resolves with the `n`th (1-based) approval request once the bot has sent it. */
  const request = async (chatId: number, threadId?: number, n = 1): Promise<SentTelegramMessage> => {
    await api.waitFor(() => requests(chatId, threadId).length >= n, `approval request ${n}`);
    const asked = requests(chatId, threadId)[n - 1];
    const first = asked.reply_markup?.inline_keyboard[0]?.[0]?.callback_data ?? '';
    const id = /^hermes:approval:([0-9a-f]{16}):once$/.exec(first)?.[1];
    if (id) requestIds.set(asked.message_id, id);
    return asked;
  };
  /** The approval request message as it is now (edits included). */
  const current = (asked: SentTelegramMessage) => api.sent.find((sent) => sent.message_id === asked.message_id)!;
  const said = (chatId: number, text: string) => api.waitFor(() => api.sentTo(chatId).some((sent) => sent.text === text), `"${text}"`);
  return { api, agent, answers, request, requests, current, said, restart };
}

describe('Telegram approval buttons (fake Bot API, real gateway)', () => {
  it('sends the request with four buttons; a press of Approve once is answered and lets the command run', async () => {
    const { api, answers, request, current, said } = await setup();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    expect(asked.text).toMatch(/^⚠️ Approval needed \(recursive delete\):\nrm -rf build\n\nAsked by Ada; only Ada or an admin can answer\./);
    expect(asked.raw).toContain('<pre>rm -rf build</pre>');
    expect(asked.reply_markup).toEqual(keyboardFor(requestIds.get(asked.message_id) ?? 'none'));
    expect(answers).toEqual([]);

    const press = api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'once'), userId: ADA });
    await said(ADA, 'ran rm -rf build');
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
    expect(asked.reply_markup).toEqual(keyboardFor(requestIds.get(asked.message_id) ?? 'none'));
    expect(asked.reply_to_message_id).toBeDefined();

    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'deny'), userId: ADA });
    await api.waitFor(() => api.sentTo(GROUP, 7).some((sent) => sent.text === 'did not run it'), 'the turn to finish');
    expect(answers).toEqual([false]);
    expect(agent.turns.map((turn) => turn.options.sessionKey)).toEqual([`telegram:${GROUP}:7`]);
    expect(api.sentTo(GROUP, 7).map((sent) => sent.text)).toContain('Denied.');
    expect(current(asked).text).toMatch(/\n\n❌ Denied by Ada\.$/);
    expect(current(asked).reply_markup).toBeUndefined();
    expect(api.sentTo(GROUP).every((sent) => sent.message_thread_id === 7)).toBe(true);
    expect(api.callbackAnswers).toHaveLength(1);
  });

  it('an allowed stranger in the same group cannot approve Ada\'s request, by button or by typing; Root, an admin, can', async () => {
    const { api, answers, request, current, said } = await setup();
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} clean the build` });
    const asked = await request(GROUP);
    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'always'), userId: BOB, firstName: 'Bob' });
    await said(GROUP, 'Only Ada or an admin can answer this request.');
    api.injectMessage({ chatId: GROUP, userId: BOB, firstName: 'Bob', chatType: 'supergroup', text: `/approve@${api.botUsername}` });
    await api.waitFor(() => api.sentTo(GROUP).filter((sent) => sent.text === 'Only Ada or an admin can answer this request.').length === 2, 'the second refusal');
    expect(answers).toEqual([]);
    expect(current(asked).reply_markup).toEqual(keyboardFor(requestIds.get(asked.message_id) ?? 'none'));

    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'once'), userId: ROOT, firstName: 'Root' });
    await said(GROUP, 'ran rm -rf build');
    expect(answers).toEqual([true]);
    expect(current(asked).text).toMatch(/\n\n✅ Approved by Root\.$/);
  });

  it('a press by a user who is not allowed is answered but refused like their messages; the request still waits', async () => {
    const { api, answers, request } = await setup();
    api.injectMessage({ chatId: GROUP, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} clean the build` });
    const asked = await request(GROUP);

    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'once'), userId: STRANGER, firstName: 'Eve' });
    await api.waitFor(() => api.sentTo(GROUP).some((sent) => sent.text.includes(String(STRANGER))), 'the refusal');
    expect(api.sentTo(GROUP).find((sent) => sent.text.includes(String(STRANGER)))!.text).toContain('TELEGRAM_ALLOWED_USERS');
    expect(api.callbackAnswers).toHaveLength(1);
    expect(answers).toEqual([]);
    expect(api.sentTo(GROUP).map((sent) => sent.text)).not.toContain('Approved.');

    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'deny'), userId: ADA });
    await api.waitFor(() => api.sentTo(GROUP).some((sent) => sent.text === 'did not run it'), 'the turn to finish');
    expect(answers).toEqual([false]);
    expect(api.callbackAnswers).toHaveLength(2);
  });

  it('This session lets the same command run again without asking, until /new', async () => {
    const { api, answers, request, requests, current, said } = await setup();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'session'), userId: ADA });
    await said(ADA, 'ran rm -rf build');
    expect(current(asked).text).toMatch(/\n\n✅ Approved by Ada for this session\.$/);
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'and again' });
    await api.waitFor(() => answers.length === 2, 'the second turn');
    expect(answers).toEqual([true, true]);
    expect(requests(ADA)).toHaveLength(1);

    api.injectMessage({ chatId: ADA, userId: ADA, text: '/new' });
    await api.waitFor(() => api.sentTo(ADA).some((sent) => sent.text.startsWith('Started a new session')), 'the new session');
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean once more' });
    const again = await request(ADA, undefined, 2);
    api.injectCallbackQuery({ messageId: again.message_id, data: dataOf(again, 'deny'), userId: ADA });
    await api.waitFor(() => answers.length === 3, 'the third turn');
    expect(answers).toEqual([true, true, false]);
  });

  it('Always keeps a rule that holds after a restart and shows in /status; /approve forget removes it', async () => {
    const { api, answers, request, requests, said, restart } = await setup();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'always'), userId: ADA });
    await said(ADA, 'Approved always: kept as rule 1 (/status lists the rules; /approve forget 1 removes it).');
    await api.waitFor(() => answers.length === 1, 'the first turn');

    await restart();
    api.injectMessage({ chatId: GROUP, userId: BOB, firstName: 'Bob', chatType: 'supergroup', text: `@${api.botUsername} clean the build` });
    await api.waitFor(() => answers.length === 2, 'the turn after the restart');
    expect(answers).toEqual([true, true]);
    expect(requests(GROUP)).toHaveLength(0);
    api.injectMessage({ chatId: GROUP, userId: BOB, firstName: 'Bob', chatType: 'supergroup', text: `/status@${api.botUsername}` });
    await api.waitFor(() => api.sentTo(GROUP).some((sent) => sent.text.includes('Approval rules')), 'the status');
    expect(api.sentTo(GROUP).find((sent) => sent.text.includes('Approval rules'))!.text).toContain(`1. rm -rf build — recursive delete (by telegram:${ADA} (Ada))`);
    api.injectMessage({ chatId: GROUP, userId: BOB, firstName: 'Bob', chatType: 'supergroup', text: `/approve@${api.botUsername} forget 1` });
    await said(GROUP, 'Removed rule 1: rm -rf build (recursive delete). It asks again from now on.');
    api.injectMessage({ chatId: GROUP, userId: BOB, firstName: 'Bob', chatType: 'supergroup', text: `@${api.botUsername} clean the build` });
    await request(GROUP);
  });

  it('a refused approval message ends that request at once, and the next request is answerable at once', async () => {
    const { api, answers, request, said } = await setup();
    api.refuseNext('sendMessage', 400, 'Bad Request: BUTTON_DATA_INVALID', (params) => params.reply_markup !== undefined);
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    // Refused at once (the timeout is 300 s), so the turn ends without waiting.
    await said(ADA, 'did not run it');
    expect(answers).toEqual([false]);
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'try again' });
    const asked = await request(ADA);
    api.injectMessage({ chatId: ADA, userId: ADA, text: '/approve' });
    await said(ADA, 'ran rm -rf build');
    expect(answers).toEqual([false, true]);
    expect(api.sent.find((sent) => sent.message_id === asked.message_id)!.text).toMatch(/✅ Approved by Ada\.$/);
  });

  it('a press after the request was answered is still answered, and told nothing waits', async () => {
    const { api, answers, request, said } = await setup();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'once'), userId: ADA });
    await said(ADA, 'ran rm -rf build');
    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'deny'), userId: ADA, staleView: true });
    await said(ADA, 'This approval request is no longer waiting.');
    expect(answers).toEqual([true]);
    expect(api.callbackAnswers).toHaveLength(2);
  });

  it('a forged press (a request id nobody asked) is refused and reaches no request; the real button still works', async () => {
    const { api, answers, request, said } = await setup();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    api.injectCallbackQuery({ messageId: asked.message_id, data: 'hermes:approval:0123456789abcdef:once', userId: ADA, staleView: true });
    await said(ADA, 'This approval request is no longer waiting.');
    expect(answers).toEqual([]);
    api.injectCallbackQuery({ messageId: asked.message_id, data: dataOf(asked, 'deny'), userId: ADA });
    await said(ADA, 'did not run it');
    expect(answers).toEqual([false]);
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
    const { api, answers, request, current, said } = await setup(1);
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'clean the build' });
    const asked = await request(ADA);
    await said(ADA, 'did not run it');
    expect(answers).toEqual([false]);
    expect(current(asked).text).toMatch(/\n\n⏱ Refused: nobody answered within 1 s\.$/);
    expect(current(asked).reply_markup).toBeUndefined();
  });
});
