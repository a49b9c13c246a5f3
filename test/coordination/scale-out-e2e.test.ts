import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../src/cli/commands/gateway.js';
import { loadConfig } from '../../src/config/index.js';
import { groupAlive } from '../../src/environments/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel, requestFor, toolResultsFor, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';

const missingRedis = redisSkipReason('the several-instances end-to-end tests');
const hasPython = spawnSync('python3', ['--version']).status === 0;
if (!hasPython && process.env.CI !== 'true') console.warn('the several-instances end-to-end tests cannot run here: python3 is not installed');
const runs = !missingRedis && (hasPython || process.env.CI === 'true');
const missingPostgres = postgresSkipReason('the several-instances end-to-end tests on PostgreSQL');

const KEY_VAR = 'HERMES_SCALE_OUT_E2E_KEY';
process.env[KEY_VAR] = 'sk-fake';
const SECRET = 'hook-secret';
const CHATS = { ada: 1001, bob: 2002, cy: 3003, dee: 4004 } as const;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

interface Instance {
  name: string;
  port: number;
  running: RunningGateway;
}

/** The same three instances on each store: one state.db file, or one PostgreSQL database. */
function threeInstances(store: 'sqlite' | 'postgres'): void {
  let redis: TestRedis;
  let postgres: TestPostgres | undefined;
  let postgresUrl = '';
  let api: FakeTelegramApi;
  let model: FakeOpenAI;
  let home: string;
  const instances: Instance[] = [];
  let updateId = 0;

  /** What the fake Telegram does: POSTs one update to one instance's webhook. */
  const send = (to: Instance, chat: number, text: string) =>
    new Promise<number>((resolve, reject) => {
      updateId += 1;
      const body = JSON.stringify({
        update_id: updateId,
        message: { message_id: updateId, date: 1, chat: { id: chat, type: 'private', first_name: 'U' }, from: { id: chat, is_bot: false, first_name: 'U' }, text },
      });
      const req = request(
        { host: '127.0.0.1', port: to.port, path: '/hook', method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const answers = (chat: number) => api.sentTo(chat).map((sent) => sent.text).filter((text) => !text.startsWith('⚙️'));

  beforeAll(async () => {
    redis = await startRedis();
    postgres = store === 'postgres' ? await startPostgres() : undefined;
    if (postgres) postgresUrl = await postgres.createDatabase();
    const sessions = postgres ? { store: 'postgres' as const, postgres_url: postgresUrl } : { store: 'sqlite' as const };
    api = await new FakeTelegramApi().start();
    home = mkdtempSync(join(tmpdir(), 'hermes-scale-out-'));
    model = await startFakeOpenAI({ fallback: e2eModel(home) });
    for (const name of ['A', 'B', 'C']) {
      const port = await freePort();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        TELEGRAM_BOT_TOKEN: api.token,
        TELEGRAM_ALLOWED_USERS: Object.values(CHATS).join(','),
        TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
        TELEGRAM_WEBHOOK_PORT: String(port),
        TELEGRAM_WEBHOOK_SECRET: SECRET,
      };
      delete env.GATEWAY_ALLOW_ALL_USERS;
      delete env.REDIS_URL;
      const platforms = { slack: { enabled: false }, discord: { enabled: false }, web: { enabled: false }, telegram: { api_root: api.apiRoot } };
      const loaded = loadConfig({
        home,
        loadEnv: false,
        env,
        overrides: {
          model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR },
          platforms,
          terminal: { platform_backend: 'local' },
          coordination: { backend: 'redis', redis_url: redis.url },
          sessions,
        },
      });
      const { startGateway } = await import('../../src/cli/commands/gateway.js');
      const running = await startGateway(loaded, { env });
      expect(running.report.started).toEqual(['telegram']);
      instances.push({ name, port, running });
    }
  }, 60_000);

  afterAll(async () => {
    for (const instance of instances) await instance.running.stop();
    await model?.close();
    await api?.close();
    await redis?.stop();
    await postgres?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 60_000);

  it('messages sent round robin to A, B and C are answered in order in each thread, each turn with the whole history', async () => {
    const [a, b, c] = instances;
    const order = [a, b, c];
    for (let i = 0; i < 6; i++) {
      // Two threads at once, each going round the instances from a different start.
      expect(await send(order[i % 3], CHATS.ada, `ada ${i} [RR]`)).toBe(200);
      expect(await send(order[(i + 1) % 3], CHATS.bob, `bob ${i} [RR]`)).toBe(200);
      await api.waitFor(() => answers(CHATS.ada).length === i + 1 && answers(CHATS.bob).length === i + 1, `the answers to message ${i}`);
    }
    expect(answers(CHATS.ada)).toEqual(Array.from({ length: 6 }, (_, i) => `echo: ada ${i} [RR]`));
    expect(answers(CHATS.bob)).toEqual(Array.from({ length: 6 }, (_, i) => `echo: bob ${i} [RR]`));
    // The last turn (on B for ada, on C for bob) had every earlier message of its thread, wherever it ran.
    const userTexts = (tag: string) =>
      requestFor(model.requests, tag)?.body.messages.filter((m) => m.role === 'user').map((m) => String(m.content)) ?? [];
    expect(userTexts('ada 5 [RR]')).toEqual(Array.from({ length: 6 }, (_, i) => `ada ${i} [RR]`));
    expect(userTexts('bob 5 [RR]')).toEqual(Array.from({ length: 6 }, (_, i) => `bob ${i} [RR]`));
    // The history was where the store says: in PostgreSQL, with no state.db beside it.
    expect(existsSync(join(home, 'state.db'))).toBe(store === 'sqlite');
    if (postgres) expect((await postgres.query<{ n: number }>(postgresUrl, 'SELECT count(*)::int AS n FROM messages'))[0].n).toBeGreaterThanOrEqual(24);
  }, 120_000);

  it('a new message sent to B interrupts the script running on A: its process group dies and B’s message is answered', async () => {
    const [a, b] = instances;
    await send(a, CHATS.cy, 'start the slow job [SLOW:Z]');
    const pgid = await waitForPgid(home, 'Z');
    expect(groupAlive(pgid)).toBe(true);
    await send(b, CHATS.cy, 'never mind [Z2]');
    await api.waitFor(() => answers(CHATS.cy).some((text) => text.includes('never mind [Z2]')), 'the answer to the message sent to B');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
    expect(toolResultsFor(model.requests, '[Z2]').some((content) => content.includes('[execution interrupted — user sent a new message]'))).toBe(true);
  }, 120_000);

  it('/stop sent to A stops the script running on C (its process group dies)', async () => {
    const [a, , c] = instances;
    await send(c, CHATS.dee, 'run forever [SLOW:W]');
    const pgid = await waitForPgid(home, 'W');
    await send(a, CHATS.dee, '/stop');
    await api.waitFor(() => answers(CHATS.dee).includes('Stopped.'), 'Stopped.');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
  }, 120_000);
}

describe.runIf(runs)('three gateway instances on one Redis and one state.db, behind a fake Telegram webhook', () => threeInstances('sqlite'));
describe.runIf(runs && !missingPostgres)('three gateway instances on one Redis and one PostgreSQL database, behind a fake Telegram webhook', () =>
  threeInstances('postgres'),
);
