import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { TelegramAdapter, createTelegramAdapter } from '../../adapters/telegram/index.js';
import { Gateway } from '../../src/gateway/index.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { FakeAgent, answerAtOnce, testConfig, untilAborted } from '../gateway/helpers.js';

const ADA = 1001;
let cleanup: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setup(options: { agent?: FakeAgent; refuseHtml?: boolean; env?: NodeJS.ProcessEnv; webhook?: { port: number; secret?: string } } = {}) {
  const api = await new FakeTelegramApi({ refuseHtml: options.refuseHtml }).start();
  const agent = options.agent ?? new FakeAgent();
  const adapter = new TelegramAdapter({
    token: api.token,
    apiRoot: api.apiRoot,
    pollTimeoutSeconds: 2,
    webhook: options.webhook
      ? { url: `http://127.0.0.1:${options.webhook.port}/telegram/hook`, port: options.webhook.port, host: '127.0.0.1', secret: options.webhook.secret }
      : undefined,
  });
  const gateway = new Gateway({ agent, config: testConfig(), env: options.env ?? { TELEGRAM_ALLOWED_USERS: `${ADA},2002` } });
  gateway.register(adapter);
  const report = await gateway.start();
  expect(report.failed).toEqual([]);
  cleanup.push(async () => {
    await gateway.stop();
    await api.close();
  });
  return { api, agent, adapter, gateway };
}

describe('Telegram adapter (fake Bot API, long polling)', () => {
  it('answers a DM in its chat as HTML after typing, and registers the chat commands at start', async () => {
    const { api } = await setup();
    expect(api.callsOf('getMe')).toHaveLength(1);
    expect((api.commands as Array<{ command: string }>).map((command) => command.command)).toEqual(
      expect.arrayContaining(['new', 'stop', 'status', 'help']),
    );
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'hello **there**' });
    await api.waitFor(() => api.sentTo(ADA).length === 1, 'the reply');
    const [reply] = api.sentTo(ADA);
    expect(reply.text).toBe('answer: hello there');
    expect(reply.raw).toBe('answer: hello <b>there</b>');
    expect(reply.parse_mode).toBe('HTML');
    expect(api.callsOf('sendChatAction')[0].params).toMatchObject({ chat_id: ADA, action: 'typing' });
    expect(api.callsOf('getUpdates').some((call) => Number(call.params.timeout) === 2)).toBe(true);
  });

  it('escapes text so that Telegram shows exactly what the model wrote', async () => {
    const tricky = 'a < b && c > d, <script>x</script> & `if (x<y)`';
    const agent = new FakeAgent(async () => ({ text: tricky, status: 'completed' }));
    const { api } = await setup({ agent });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'show me' });
    await api.waitFor(() => api.sentTo(ADA).length === 1);
    expect(api.sentTo(ADA)[0].parse_mode).toBe('HTML');
    expect(api.sentTo(ADA)[0].text).toBe('a < b && c > d, <script>x</script> & if (x<y)');
  });

  it('sends the reply as plain text when Telegram refuses the HTML markup', async () => {
    const agent = new FakeAgent(async () => ({ text: 'Here is **bold** and `code`', status: 'completed' }));
    const { api } = await setup({ agent, refuseHtml: true });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'hi' });
    await api.waitFor(() => api.sentTo(ADA).length === 1, 'the plain reply');
    const refused = api.callsOf('sendMessage').filter((call) => call.params.parse_mode === 'HTML');
    expect(refused.length).toBeGreaterThan(0);
    const [reply] = api.sentTo(ADA);
    expect(reply.parse_mode).toBeUndefined();
    expect(reply.text).toBe('Here is **bold** and `code`');
  });

  it('splits a long reply at 4096 characters with (i/n) markers', async () => {
    const long = Array.from({ length: 900 }, (_, i) => `line number ${i}`).join('\n');
    const agent = new FakeAgent(async () => ({ text: long, status: 'completed' }));
    const { api } = await setup({ agent });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'long please' });
    await api.waitFor(() => api.sentTo(ADA).length >= 2 && /\((\d+)\/\1\)$/.test(api.sentTo(ADA).at(-1)!.text), 'all parts');
    const parts = api.sentTo(ADA);
    parts.forEach((part, i) => {
      expect(part.text.length).toBeLessThanOrEqual(4096);
      expect(part.text.endsWith(`(${i + 1}/${parts.length})`)).toBe(true);
    });
    expect(parts.map((part) => part.text.replace(/\n\(\d+\/\d+\)$/, '')).join('\n')).toBe(long);
  });

  it('in a group answers only when mentioned or replied to, strips the mention and replies to that message', async () => {
    const { api, agent } = await setup();
    const group = -100500;
    api.injectMessage({ chatId: group, userId: ADA, chatType: 'supergroup', text: 'just chatting' });
    api.injectMessage({ chatId: group, userId: ADA, chatType: 'supergroup', text: `@${api.botUsername} what is 2+2?` });
    await api.waitFor(() => api.sentTo(group).length === 1, 'the reply to the mention');
    expect(agent.turns.map((turn) => turn.options.text)).toEqual(['what is 2+2?']);
    const reply = api.sentTo(group)[0];
    expect(reply.reply_to_message_id).toBeDefined();
    api.injectMessage({ chatId: group, userId: ADA, chatType: 'supergroup', text: 'and times 3?', replyToBotMessage: reply.message_id });
    await api.waitFor(() => api.sentTo(group).length === 2, 'the reply to the reply');
    expect(agent.turns.map((turn) => turn.options.text)).toEqual(['what is 2+2?', 'and times 3?']);
    expect(new Set(agent.turns.map((turn) => turn.options.sessionKey))).toEqual(new Set([`telegram:${group}`]));
    // Commands addressed to this bot work in groups; those for another bot are not ours.
    api.injectMessage({ chatId: group, userId: ADA, chatType: 'supergroup', text: '/status@other_bot' });
    api.injectMessage({ chatId: group, userId: ADA, chatType: 'supergroup', text: `/status@${api.botUsername}` });
    await api.waitFor(() => api.sentTo(group).length === 3, 'the status reply');
    expect(api.sentTo(group)[2].text).toContain('Model: fake-model');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(api.sentTo(group)).toHaveLength(3);
  });

  it('treats forum topics as sessions of their own and answers in the topic', async () => {
    const { api, agent } = await setup();
    const forum = -100777;
    api.injectMessage({ chatId: forum, userId: ADA, chatType: 'supergroup', threadId: 11, text: `@${api.botUsername} one` });
    api.injectMessage({ chatId: forum, userId: ADA, chatType: 'supergroup', threadId: 12, text: `@${api.botUsername} two` });
    await api.waitFor(() => api.sentTo(forum).length === 2);
    expect(agent.turns.map((turn) => turn.options.sessionKey).sort()).toEqual([`telegram:${forum}:11`, `telegram:${forum}:12`]);
    expect(api.sentTo(forum, 11).map((sent) => sent.text)).toEqual(['answer: one']);
    expect(api.sentTo(forum, 12).map((sent) => sent.text)).toEqual(['answer: two']);
  });

  it('tells a user who is not allowed their id once and never runs their messages', async () => {
    const { api, agent } = await setup({ env: {} });
    api.injectMessage({ chatId: 3003, userId: 3003, text: 'let me in' });
    api.injectMessage({ chatId: 3003, userId: 3003, text: 'please' });
    await api.waitFor(() => api.callsOf('getUpdates').some((call) => Number(call.params.offset) > 2), 'both updates taken');
    await api.waitFor(() => api.sentTo(3003).length === 1);
    expect(api.sentTo(3003)[0].text).toContain('3003');
    expect(api.sentTo(3003)[0].text).toContain('TELEGRAM_ALLOWED_USERS');
    expect(agent.turns).toHaveLength(0);
  });

  it('a long turn in one chat does not hold up another chat; /stop and /new work', async () => {
    const agent = new FakeAgent(async (options, record) => (options.text === 'long job' ? untilAborted(options, record) : answerAtOnce(options, record)));
    const { api } = await setup({ agent });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'long job' });
    await api.waitFor(() => agent.turns.length === 1);
    api.injectMessage({ chatId: 2002, userId: 2002, text: 'quick one' });
    await api.waitFor(() => api.sentTo(2002).length === 1, 'the other chat');
    expect(agent.turns[0].finished).toBe(false);
    api.injectMessage({ chatId: ADA, userId: ADA, text: '/stop' });
    await api.waitFor(() => api.sentTo(ADA).some((sent) => sent.text === 'Stopped.'));
    expect(agent.turns[0].abortReason).toBe('stopped by the user');
    api.injectMessage({ chatId: ADA, userId: ADA, text: '/new' });
    await api.waitFor(() => api.sentTo(ADA).some((sent) => sent.text.startsWith('Started a new session')));
    expect(agent.newSessions).toEqual([`telegram:${ADA}`]);
  });
});

describe('Telegram adapter: progress, start failures and set-up', () => {
  it('shows tool progress in one message edited in place', async () => {
    let finish: (() => void) | undefined;
    const agent = new FakeAgent(async (options) => {
      options.onEvent?.({ type: 'tool_started', callId: '1', name: 'execute_code', args: { code: 'print(1)' } });
      await new Promise<void>((resolve) => (finish = resolve));
      options.onEvent?.({ type: 'tool_started', callId: '2', name: 'terminal', args: { command: 'ls -la' } });
      return { text: 'done', status: 'completed' };
    });
    const { api } = await setup({ agent });
    api.injectMessage({ chatId: ADA, userId: ADA, text: 'work' });
    await api.waitFor(() => api.sentTo(ADA).length === 1, 'the progress message');
    finish!();
    await api.waitFor(() => api.sentTo(ADA).some((sent) => sent.text === 'done'), 'the answer');
    const [progress, answer] = api.sentTo(ADA);
    expect(answer.text).toBe('done');
    expect(progress.edits).toBe(1);
    expect(progress.text).toBe('⚙️ execute_code: print(1)\n⚙️ terminal: ls -la');
  });

  it('logs, and keeps the gateway alive, when polling ends because the token was revoked', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const api = await new FakeTelegramApi().start();
    cleanup.push(() => api.close());
    const adapter = new TelegramAdapter({ token: api.token, apiRoot: api.apiRoot, pollTimeoutSeconds: 5, logger });
    cleanup.push(() => adapter.stop());
    await adapter.start(async () => {}, new AbortController().signal);
    await api.waitFor(() => api.callsOf('getUpdates').length > 0, 'polling');
    api.revoke();
    await vi.waitFor(() => expect(lines.join('')).toContain('telegram polling stopped'), { timeout: 10_000 });
  });

  it('fails to start with a clear error when the token is refused', async () => {
    const api = await new FakeTelegramApi().start();
    cleanup.push(() => api.close());
    const adapter = new TelegramAdapter({ token: '999:wrong', apiRoot: api.apiRoot });
    await expect(adapter.start(async () => {}, new AbortController().signal)).rejects.toThrow(/getMe failed.*Unauthorized.*TELEGRAM_BOT_TOKEN/);
  });

  it('is built only when enabled and given a token; TELEGRAM_WEBHOOK_URL selects webhook mode with a secret', () => {
    const config = testConfig({ platforms: { telegram: { api_root: 'http://127.0.0.1:1' } } });
    expect(createTelegramAdapter({ config, env: {} })).toBeUndefined();
    expect(createTelegramAdapter({ config: testConfig({ platforms: { telegram: { enabled: false } } }), env: { TELEGRAM_BOT_TOKEN: '1:a' } })).toBeUndefined();
    const polling = createTelegramAdapter({ config, env: { TELEGRAM_BOT_TOKEN: '1:a' } });
    expect(polling?.webhookOptions).toBeUndefined();
    const hooked = createTelegramAdapter({ config, env: { TELEGRAM_BOT_TOKEN: '1:a', TELEGRAM_WEBHOOK_URL: 'https://bot.example/tg', PORT: '5000' } });
    expect(hooked?.webhookOptions).toMatchObject({ url: 'https://bot.example/tg', port: 5000 });
    expect(hooked?.webhookOptions?.secret).toMatch(/^[0-9a-f]{48}$/);
    const given = createTelegramAdapter({
      config,
      env: { TELEGRAM_BOT_TOKEN: '1:a', TELEGRAM_WEBHOOK_URL: 'https://bot.example/tg', TELEGRAM_WEBHOOK_PORT: '7000', TELEGRAM_WEBHOOK_SECRET: 'abc' },
    });
    expect(given?.webhookOptions).toMatchObject({ port: 7000, secret: 'abc' });
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function post(port: number, path: string, body: unknown, secret?: string, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = request(
      { host, port, path, method: 'POST', headers: { 'content-type': 'application/json', ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('Telegram adapter (webhook mode)', () => {
  it('sets the webhook with its secret, refuses requests without the secret-token header, and answers those with it', async () => {
    const port = await freePort();
    const { api, agent } = await setup({ webhook: { port, secret: 's3cret-token' } });
    expect(api.webhook).toEqual({ url: `http://127.0.0.1:${port}/telegram/hook`, secret_token: 's3cret-token' });
    expect(api.callsOf('getUpdates')).toHaveLength(0);
    const update = (id: number, text: string) => ({
      update_id: id,
      message: { message_id: id, date: 1, chat: { id: ADA, type: 'private', first_name: 'Ada' }, from: { id: ADA, is_bot: false, first_name: 'Ada' }, text },
    });
    expect(await post(port, '/telegram/hook', update(1, 'forged'), 'wrong')).toBe(401);
    expect(await post(port, '/telegram/hook', update(2, 'forged too'))).toBe(401);
    expect(await post(port, '/elsewhere', update(3, 'lost'), 's3cret-token')).toBe(404);
    expect(await post(port, '/telegram/hook', update(4, 'real'), 's3cret-token')).toBe(200);
    await api.waitFor(() => api.sentTo(ADA).length === 1);
    expect(agent.turns.map((turn) => turn.options.text)).toEqual(['real']);
  });

  async function startFromConfig(telegram: { webhook_host?: string }) {
    const api = await new FakeTelegramApi().start();
    const port = await freePort();
    const adapter = createTelegramAdapter({
      config: testConfig({ platforms: { telegram: { api_root: api.apiRoot, ...telegram } } }),
      env: { TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`, TELEGRAM_WEBHOOK_PORT: String(port), TELEGRAM_WEBHOOK_SECRET: 'tok' },
    });
    if (!adapter) throw new Error('createTelegramAdapter built no adapter for a token and a webhook URL');
    const stop = new AbortController();
    await adapter.start(async () => {}, stop.signal);
    cleanup.push(async () => {
      stop.abort();
      await adapter.stop();
      await api.close();
    });
    return port;
  }

  it('listens on platforms.telegram.webhook_host only: bound to 127.0.0.2, a connection to 127.0.0.1 is refused', async () => {
    const port = await startFromConfig({ webhook_host: '127.0.0.2' });
    expect(await post(port, '/hook', { update_id: 1 }, 'tok', '127.0.0.2')).toBe(200);
    await expect(post(port, '/hook', { update_id: 2 }, 'tok', '127.0.0.1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('listens on loopback by default: bound to 127.0.0.1, a connection to 127.0.0.2 is refused', async () => {
    expect(testConfig().platforms.telegram.webhook_host).toBe('127.0.0.1');
    const port = await startFromConfig({});
    expect(await post(port, '/hook', { update_id: 1 }, 'tok', '127.0.0.1')).toBe(200);
    await expect(post(port, '/hook', { update_id: 2 }, 'tok', '127.0.0.2')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
