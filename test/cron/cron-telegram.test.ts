import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { loadConfig, type ConfigOverrides } from '../../src/config/index.js';
import { findExecutable, groupAlive } from '../../src/environments/index.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type RecordedRequest } from '../fakes/openai-server.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { waitForPgid, waitForGroupGone } from '../fakes/slack-e2e-model.js';

/*
 * Scheduled jobs end to end: `hermes gateway` as the CLI starts it (the real agent, state.db, the
 * outbox, the Telegram adapter against the fake Bot API), the fake model playing the user's asks.
 * A user text `CRON {json}` makes the model call the cronjob tool with those arguments; after a
 * tool result it answers `tool: <result>`; anything else gets `echo: <text>`.
 */
const hasPython = spawnSync('python3', ['--version']).status === 0;
const KEY_VAR = 'HERMES_CRON_E2E_KEY';
process.env[KEY_VAR] = 'sk-fake';
const CHAT = 1001;
const HOME_CHAT = 2002;
/** Allowed to talk to the bot, not an admin. */
const BOB = 3003;
const OTHER_ADMIN = 4004;

function cronModel(): FakeReply {
  return {
    respond: (request: RecordedRequest): FakeReply => {
      const messages = request.body.messages;
      const last = messages[messages.length - 1];
      if (last.role === 'tool') return { text: `tool: ${String(last.content)}` };
      const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
      const ask = /CRON (\{[\s\S]*\})\s*$/.exec(text);
      if (ask) return { toolCalls: [{ name: 'cronjob', arguments: ask[1] }] };
      return { text: `echo: ${text}` };
    },
  };
}

interface Setup {
  api: FakeTelegramApi;
  model: FakeOpenAI;
  home: string;
  start: () => Promise<RunningGateway>;
}

let stops: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

beforeAll(async () => {
  await Promise.all([import('../../src/cli/commands/gateway.js'), import('../../adapters/index.js')]);
}, 120_000);

/** A fake Bot API and model, a temporary HERMES_HOME, and a way to start (and start again) the gateway on them. */
async function setup(cron: ConfigOverrides['cron'] = {}, terminal?: ConfigOverrides['terminal'], admins: Record<string, string[]> = {}): Promise<Setup> {
  const api = await new FakeTelegramApi().start();
  const model = await startFakeOpenAI({ fallback: cronModel() });
  const home = mkdtempSync(join(tmpdir(), 'hermes-cron-'));
  stops.push(() => rmSync(home, { recursive: true, force: true }), () => api.close(), () => model.close());
  const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: `${CHAT},${HOME_CHAT},${BOB},${OTHER_ADMIN}` };
  delete env.TELEGRAM_WEBHOOK_URL;
  const overrides: ConfigOverrides = {
    model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR },
    platforms: { telegram: { api_root: api.apiRoot }, slack: { enabled: false }, discord: { enabled: false }, web: { enabled: false } },
    // The scripts write their process group into HERMES_HOME: on the host, not in a sandbox.
    terminal: terminal ?? { platform_backend: 'local', cwd: home },
    cron,
    approvals: { admins },
  };
  const start = async () => {
    const { startGateway } = await import('../../src/cli/commands/gateway.js');
    const running = await startGateway(loadConfig({ home, overrides, loadEnv: false, env }), { env });
    stops.push(() => running.stop());
    return running;
  };
  return { api, model, home, start };
}

const say = (api: FakeTelegramApi, text: string, chat = CHAT) => api.injectMessage({ chatId: chat, userId: chat, text });
const texts = (api: FakeTelegramApi, chat = CHAT) => api.sentTo(chat).map((sent) => sent.text);

async function waitFor(api: FakeTelegramApi, check: (texts: string[]) => boolean, what: string, chat = CHAT): Promise<string[]> {
  const started = Date.now();
  for (;;) {
    const seen = texts(api, chat);
    if (check(seen)) return seen;
    if (Date.now() - started > 60_000) throw new Error(`gave up waiting for ${what}; chat ${chat} got:\n${seen.join('\n---\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Asks the model to call cronjob with `args`; returns the tool's answer as the chat showed it. */
async function cronjob(api: FakeTelegramApi, args: Record<string, unknown>): Promise<string> {
  const before = texts(api).length;
  say(api, `CRON ${JSON.stringify(args)}`);
  const seen = await waitFor(api, (all) => all.slice(before).some((t) => t.startsWith('tool: ')), 'the cronjob result');
  return seen.slice(before).find((t) => t.startsWith('tool: '))!;
}

/** Sends a chat command and returns its answer (the first new message). */
async function command(api: FakeTelegramApi, text: string, chat = CHAT): Promise<string> {
  const before = texts(api, chat).length;
  say(api, text, chat);
  return (await waitFor(api, (all) => all.length > before, `the answer to ${text}`, chat))[before];
}

const createdId = (answer: string) => /"id":"(j[0-9a-f]+)"/.exec(answer)?.[1];
const ticks = (all: string[], id: string) => all.filter((t) => t === `⏰ ${id} (every 2s): tick`).length;

describe.runIf(hasPython || process.env.CI === 'true')('scheduled jobs through Telegram', { timeout: 180_000 }, () => {
  it('a script job every 2 s delivers to the chat with no model call, is listed as delivered, and goes on after a gateway restart', async () => {
    const { api, model, start } = await setup();
    const first = await start();
    const answer = await cronjob(api, { action: 'create', schedule: 'every 2s', script: "print('tick')" });
    const id = createdId(answer);
    expect(id, answer).toBeDefined();
    await waitFor(api, (all) => ticks(all, id!) >= 2, 'two ticks');
    // The model was asked twice for the tool call and its answer; the runs asked it nothing.
    expect(model.requests).toHaveLength(2);

    const list = await command(api, '/cron');
    expect(list).toContain(`${id} · every 2s · script to this thread · next in`);
    expect(list).toMatch(/last: (success, delivered|running now)/);

    await first.stop();
    const before = ticks(texts(api), id!);
    await start();
    await waitFor(api, (all) => ticks(all, id!) >= before + 2, 'two ticks after the restart');
    expect(model.requests).toHaveLength(2);
    expect(await command(api, '/cron list')).toContain(`${id} · every 2s`);
  });

  it('/stop in the job\'s thread, /cron stop <id> and the gateway stopping end a running job: its script\'s process group dies', async () => {
    const { api, home, start } = await setup();
    const running = await start();
    const script = (name: string) =>
      `import os, time\nf = ${JSON.stringify(join(home, name))}\nopen(f + '.tmp', 'w').write(str(os.getpgrp()))\nos.replace(f + '.tmp', f)\ntime.sleep(120)\nprint('never')\n`;
    const id = createdId(await cronjob(api, { action: 'create', schedule: '0 0 1 1 *', script: script('A.pgid') }))!;
    expect(await command(api, `/cron run ${id}`)).toBe(`Running ${id} now; its output comes here when it is done.`);
    const pgid = await waitForPgid(home, 'A');
    expect(groupAlive(pgid)).toBe(true);
    expect(await command(api, '/stop')).toBe('Stopped 1 running scheduled job.');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
    expect(await command(api, '/cron')).toContain('last: interrupted, not delivered');

    rmSync(join(home, 'A.pgid'));
    await command(api, `/cron run ${id}`);
    const again = await waitForPgid(home, 'A');
    expect(await command(api, `/cron stop ${id}`)).toBe(`Stopped the running ${id}.`);
    await waitForGroupGone(again);
    expect(groupAlive(again)).toBe(false);
    // A stopped run posts nothing: /stop answered.
    expect(texts(api).filter((t) => t.startsWith(`⏰ ${id}`))).toEqual([]);

    // The gateway stopping ends a running job too.
    rmSync(join(home, 'A.pgid'));
    await command(api, `/cron run ${id}`);
    const third = await waitForPgid(home, 'A');
    await running.stop();
    await waitForGroupGone(third);
    expect(groupAlive(third)).toBe(false);
  });

  it('/sethome is for admins: Bob\'s is refused and says who may; a home job needs a home, keeps the one it was made under when another admin moves it, and its output reaches it', async () => {
    const { api, model, start } = await setup({}, undefined, { telegram: [String(CHAT), String(OTHER_ADMIN)] });
    await start();
    // No home channel yet: a home job is refused, saying how to get one.
    expect(await cronjob(api, { action: 'create', schedule: 'every 2s', prompt: 'how is the build?', deliver: 'home' })).toContain(
      'telegram has no home channel yet: an admin (approvals.admins.telegram) sends /sethome in the chat that should get the output',
    );
    // Bob is allowed to talk to the bot, but is no admin: his /sethome in his DM changes nothing.
    expect(await command(api, '/sethome', BOB)).toBe(
      `Only an admin can move the home channel (/sethome). Your telegram user id is ${BOB} and your role is user; the admins are listed in platforms.telegram.admins in config.yaml.`,
    );
    // Ada, an admin, makes the team chat the home and schedules a report there.
    const before = texts(api, HOME_CHAT).length;
    api.injectMessage({ chatId: HOME_CHAT, userId: CHAT, text: '/sethome' });
    await waitFor(api, (all) => all.length > before, 'the answer to /sethome', HOME_CHAT);
    expect(texts(api, HOME_CHAT)[before]).toBe('This chat is now the home channel of telegram: scheduled jobs made with deliver "home" from now on post here.');
    const id = createdId(await cronjob(api, { action: 'create', schedule: 'every 2s', prompt: 'how is the build?', deliver: 'home' }))!;
    expect(id).toBeDefined();
    await waitFor(api, (all) => all.includes(`⏰ ${id} (every 2s): echo: how is the build?`), 'the answer in the home channel', HOME_CHAT);
    // Bob tries again, and another admin moves the home to his own DM: Ada's job keeps posting to the team chat.
    expect(await command(api, '/sethome', BOB)).toContain('Only an admin can move the home channel');
    expect(await command(api, '/sethome', OTHER_ADMIN)).toBe(
      'This chat is now the home channel of telegram: scheduled jobs made with deliver "home" from now on post here. 1 job made before in other chats keeps posting where it was scheduled.',
    );
    const outputs = () => texts(api, HOME_CHAT).filter((text) => text === `⏰ ${id} (every 2s): echo: how is the build?`).length;
    const afterMove = outputs();
    await waitFor(api, () => outputs() >= afterMove + 2, 'two more reports in the team chat after the move', HOME_CHAT);
    for (const chat of [BOB, OTHER_ADMIN]) expect(texts(api, chat).filter((text) => text.includes(`⏰ ${id}`)), `chat ${chat}`).toEqual([]);
    expect(await command(api, '/cron')).toContain(`${id} · every 2s · prompt “how is the build?” to the home channel`);
    // Prompt jobs do ask the model: a fresh session each run, the prompt alone.
    const runs = model.requests.filter((r) => r.body.messages.at(-1)?.content === 'how is the build?');
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.every((r) => r.body.messages.filter((m) => m.role === 'user').length === 1)).toBe(true);
    expect(await command(api, `/cron remove ${id}`)).toBe(`Removed ${id}.`);
    expect(await command(api, '/cron')).toMatch(/^No scheduled jobs in this thread/);
  });

  it('a job\'s output goes through the outbox: a 5xx is retried and arrives once; a refusal is listed as a failed delivery of a run that succeeded', async () => {
    const { api, start } = await setup();
    await start();
    const id = createdId(await cronjob(api, { action: 'create', schedule: '0 0 1 1 *', script: "print('report')" }))!;
    const isJob = (params: Record<string, unknown>) => String(params.text ?? '').includes(`⏰ ${id}`);
    api.refuseNext('sendMessage', 502, 'Bad Gateway', isJob);
    await command(api, `/cron run ${id}`);
    await waitForList(api, (text) => text.includes('last: success, delivered'));
    expect(texts(api).filter((t) => t === `⏰ ${id} (0 0 1 1 *): report`)).toHaveLength(1);
    // It was sent twice: refused once, then taken.
    expect(api.callsOf('sendMessage').filter((call) => isJob(call.params))).toHaveLength(2);

    api.refuseNext('sendMessage', 403, 'Forbidden: bot was blocked by the user', isJob);
    await command(api, `/cron run ${id}`);
    const list = await waitForList(api, (text) => text.includes('last: success, delivery failed'));
    expect(list).toContain('last: success, delivery failed: the platform refused it (see the gateway log)');
    expect(texts(api).filter((t) => t === `⏰ ${id} (0 0 1 1 *): report`)).toHaveLength(1);
  });

  it('a malformed cron expression, an interval of 0, a flood of jobs and bad /cron words get clear errors, and the gateway keeps answering', async () => {
    const { api, start } = await setup({ max_jobs_per_thread: 2 });
    await start();
    expect(await cronjob(api, { action: 'create', schedule: '61 * * * *', script: 'print(1)' })).toContain('is not a valid cron expression');
    expect(await cronjob(api, { action: 'create', schedule: 'every 0s', script: 'print(1)' })).toContain('is an interval of 0');
    expect(await cronjob(api, { action: 'create', schedule: 'whenever', script: 'print(1)' })).toContain('a cron expression has 5');
    expect(await cronjob(api, { action: 'create', schedule: 'every 1h' })).toContain('give exactly one of \\"prompt\\" or \\"script\\" (got neither)');
    expect(await cronjob(api, { action: 'explode' })).toContain('Invalid arguments for cronjob');
    for (let i = 0; i < 2; i++) expect(await cronjob(api, { action: 'create', schedule: 'every 1h', script: 'print(1)' })).toContain('"created"');
    expect(await cronjob(api, { action: 'create', schedule: 'every 1h', script: 'print(1)' })).toContain('already has 2 scheduled jobs (cron.max_jobs_per_thread)');
    expect(await command(api, '!cron explode')).toMatch(/^Unknown \/cron action "explode"\. Usage: \/cron/);
    expect(await command(api, '/cron pause jnope')).toBe('Sorry: no scheduled job "jnope" in this thread: /cron list (or the cronjob tool\'s list) shows the ids.');
    // Another chat sees none of this thread's jobs and cannot touch them.
    const [job] = (await command(api, '/cron')).split('\n').slice(1);
    const id = job.split(' · ')[0];
    expect(await command(api, `/cron remove ${id}`, HOME_CHAT)).toContain(`no scheduled job "${id}" in this thread`);
    expect(await command(api, 'hello')).toBe('echo: hello');
  });
});

/** Polls /cron until its answer passes `check`. */
async function waitForList(api: FakeTelegramApi, check: (text: string) => boolean): Promise<string> {
  const started = Date.now();
  for (;;) {
    const text = await command(api, '/cron');
    if (check(text)) return text;
    if (Date.now() - started > 60_000) throw new Error(`gave up waiting for /cron to say so; it said:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const sandboxReady = findExecutable('bwrap') !== undefined && findExecutable('python3') !== undefined;

describe.runIf(sandboxReady || process.env.CI === 'true')('scheduled jobs from other people', { timeout: 120_000 }, () => {
  it('a Telegram job\'s script runs on terminal.platform_backend (the sandbox): HERMES_HOME and its .env are not there', async () => {
    const { api, home, start } = await setup({}, { platform_backend: 'sandbox' });
    writeFileSync(join(home, '.env'), 'SOME_SECRET=sk-in-the-home\n');
    await start();
    const probe = `import os\nprint("env-file", os.path.exists(${JSON.stringify(join(home, '.env'))}))`;
    const id = createdId(await cronjob(api, { action: 'create', schedule: '0 0 1 1 *', script: probe }))!;
    await command(api, `/cron run ${id}`);
    const seen = await waitFor(api, (all) => all.some((t) => t.startsWith(`⏰ ${id}`)), 'the probe\'s output');
    expect(seen.find((t) => t.startsWith(`⏰ ${id}`))).toBe(`⏰ ${id} (0 0 1 1 *): env-file False`);
  });
});

