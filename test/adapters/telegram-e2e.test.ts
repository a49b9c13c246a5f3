import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import type { FakeOpenAI } from '../fakes/openai-server.js';
import { groupAlive } from '../../src/environments/index.js';
import { startE2eGateway, release, requestFor, toolResultsFor, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
if (!hasPython && process.env.CI !== 'true') console.log('telegram end-to-end tests skipped: python3 is not installed');

const KEY_VAR = 'HERMES_TELEGRAM_E2E_KEY';
process.env[KEY_VAR] = 'sk-fake';
const ADA = 1001;
const BOB = 2002;

let api: FakeTelegramApi;
let model: FakeOpenAI;
let running: RunningGateway | undefined;
let cleanup: (() => void) | undefined;
let home: string;

async function startAll(options: { refuseHtml?: boolean } = {}): Promise<void> {
  api = await new FakeTelegramApi({ refuseHtml: options.refuseHtml }).start();
  const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: `${ADA},${BOB}` };
  delete env.TELEGRAM_WEBHOOK_URL;
  delete env.GATEWAY_ALLOW_ALL_USERS;
  ({ running, model, home, cleanup } = await startE2eGateway('telegram', { api_root: api.apiRoot }, env, KEY_VAR));
  expect(running!.report.started).toEqual(['telegram']);
}

afterEach(async () => {
  await running?.stop();
  running = undefined;
  await model?.close();
  await api?.close();
  cleanup?.();
});

const textsTo = (chat: number) => api.sentTo(chat).map((sent) => sent.text);

describe.runIf(hasPython || process.env.CI === 'true')('Telegram end to end: long polling, the gateway, the agent and real execute_code', () => {
  it('a second message in a chat kills the running script and is answered in that chat, while another chat runs on', async () => {
    await startAll();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'start the slow job [SLOW:A]' });
    const pgidA = await waitForPgid(home, 'A');
    api.injectMessage({ chatId: BOB, userId: BOB, text: 'other work [WAIT:B]' });
    const pgidB = await waitForPgid(home, 'B');

    api.injectMessage({ chatId: ADA, userId: ADA, text: 'never mind [A2]' });
    const answered = (text: string) => text.startsWith('echo: ') && text.includes('never mind [A2]');
    await api.waitFor(() => textsTo(ADA).some(answered), 'the answer to the second message');
    await waitForGroupGone(pgidA);
    expect(groupAlive(pgidA)).toBe(false);
    expect(toolResultsFor(model.requests, '[A2]').some((content) => content.includes('[execution interrupted — user sent a new message]'))).toBe(true);
    // The interrupted turn said nothing of its own in the chat.
    const said = textsTo(ADA).filter((text) => !text.startsWith('⚙️'));
    expect(said).toHaveLength(1);
    expect(answered(said[0])).toBe(true);

    // The other chat was never touched: its script still runs, and finishes once released.
    expect(groupAlive(pgidB)).toBe(true);
    expect(textsTo(BOB).some((text) => text.includes('finished'))).toBe(false);
    release(home, 'B');
    await api.waitFor(() => textsTo(BOB).some((text) => text.includes('finished: ')), 'chat B to finish');
    expect(textsTo(BOB).find((text) => text.includes('finished: '))).toContain('B-DONE');
    // Tool progress: one message per turn, "⚙️ execute_code".
    expect(textsTo(BOB).filter((text) => text.startsWith('⚙️ execute_code'))).toHaveLength(1);
  }, 60_000);

  it('/stop kills the running script; /new starts a fresh session without the old history', async () => {
    await startAll();
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'run forever [SLOW:S]' });
    const pgid = await waitForPgid(home, 'S');
    api.injectMessage({ chatId: ADA, userId: ADA, text: '/stop' });
    await api.waitFor(() => textsTo(ADA).includes('Stopped.'), 'Stopped.');
    await waitForGroupGone(pgid);
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'again [SLOW:T]' });
    const pgidT = await waitForPgid(home, 'T');
    api.injectMessage({ chatId: ADA, userId: ADA, text: '/new' });
    await api.waitFor(() => textsTo(ADA).some((text) => text.startsWith('Started a new session')), '/new');
    await waitForGroupGone(pgidT);
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'fresh start' });
    await api.waitFor(() => textsTo(ADA).includes('echo: fresh start'), 'the fresh answer');
    const fresh = requestFor(model.requests, 'fresh start');
    expect(JSON.stringify(fresh?.body.messages)).not.toContain('SLOW:');
  }, 60_000);

  it('splits a long reply at 4096 with (i/n) markers and balanced code fences; refuses strangers once', async () => {
    await startAll();
    api.injectMessage({ chatId: 6666, userId: 6666, text: 'let me in' });
    api.injectMessage({ chatId: 6666, userId: 6666, text: 'please' });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'tell me everything [LONG]' });
    await api.waitFor(() => textsTo(ADA).some((text) => /\((\d+)\/\1\)$/.test(text)), 'the last part');
    const parts = textsTo(ADA);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    parts.forEach((text, i) => {
      expect(text.length).toBeLessThanOrEqual(4096);
      expect(text.endsWith(`(${i + 1}/${parts.length})`)).toBe(true);
    });
    // The code block became <pre> in HTML; its cut was closed and reopened.
    for (const sent of api.sentTo(ADA)) {
      expect((sent.raw.match(/<pre>/g) ?? []).length).toBe((sent.raw.match(/<\/pre>/g) ?? []).length);
    }
    await running!.gateway.idle();
    expect(textsTo(6666)).toHaveLength(1);
    expect(textsTo(6666)[0]).toContain('6666');
    expect(model.requests.some((r) => JSON.stringify(r.body.messages).includes('let me in'))).toBe(false);
  }, 60_000);

  it('sends plain text when Telegram refuses the HTML markup', async () => {
    await startAll({ refuseHtml: true });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'say **hi** <there>' });
    await api.waitFor(() => textsTo(ADA).length === 1, 'the plain reply');
    expect(api.callsOf('sendMessage').filter((call) => call.params.parse_mode === 'HTML')).toHaveLength(1);
    expect(api.sentTo(ADA)[0].parse_mode).toBeUndefined();
    expect(textsTo(ADA)[0]).toBe('echo: say **hi** <there>');
  }, 60_000);
});
