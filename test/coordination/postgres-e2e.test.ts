import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel, requestFor } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { builtCli } from '../helpers/hermes-process.js';
import { postgresSkipReason, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { writeInstancesConfig } from './gateway-processes.js';
import { until } from './helpers.js';

/*
 * Two `hermes gateway` processes (the built CLI; `npm test` builds first), each with a
 * HERMES_HOME of its own, on one PostgreSQL (sessions.store: postgres, the address in each
 * home's .env) and one Redis: nothing can depend on a shared state.db file.
 */
const missingServers = postgresSkipReason('the PostgreSQL gateway end-to-end test') ?? redisSkipReason('the PostgreSQL gateway end-to-end test');
const built = existsSync(builtCli);
const hasPython = spawnSync('python3', ['--version']).status === 0;
const why = !built ? 'dist/ is not built (npm run build)' : !hasPython ? 'python3 is not installed' : undefined;
if (why && process.env.CI !== 'true') console.warn(`the PostgreSQL gateway end-to-end test cannot run here: ${why}`);
const runs = !missingServers && (!why || process.env.CI === 'true');

const KEY_VAR = 'HERMES_POSTGRES_E2E_KEY';
const SECRET = 'hook-secret';
const ADA = 1001;
const PASSWORD = 'pg-Pa55word-not-for-logs';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

interface Instance {
  port: number;
  home: string;
  child: ChildProcess;
  output: () => string;
}

describe.runIf(runs)('hermes gateway on PostgreSQL (two instances, two HERMES_HOMEs, one database, one Redis)', () => {
  let postgres: TestPostgres;
  let redis: TestRedis;
  let api: FakeTelegramApi;
  let model: FakeOpenAI;
  let databaseUrl: string;
  let scratch: string;
  const instances: Instance[] = [];
  let updateId = 0;

  const send = (to: Instance, text: string) =>
    new Promise<number>((resolve, reject) => {
      updateId += 1;
      const body = JSON.stringify({
        update_id: updateId,
        message: { message_id: updateId, date: 1, chat: { id: ADA, type: 'private', first_name: 'Ada' }, from: { id: ADA, is_bot: false, first_name: 'Ada' }, text },
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
  const answers = () => api.sentTo(ADA).map((sent) => sent.text).filter((text) => !text.startsWith('⚙️'));
  const usersSeenWith = (marker: string) =>
    requestFor(model.requests, marker)
      ?.body.messages.filter((m) => m.role === 'user')
      .map((m) => String(m.content));

  /** A home of its own: config.yaml (postgres, redis) and .env with the database's address (password and all). */
  const makeHome = (url: string): string => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-pg-e2e-home-'));
    writeInstancesConfig(home, { modelUrl: model.url, keyVar: KEY_VAR, telegramApiRoot: api.apiRoot, redisUrl: redis.url }, { sessions: { store: 'postgres' }, coordination: { lease_seconds: 1 } });
    writeFileSync(join(home, '.env'), `DATABASE_URL=${url}\n`);
    return home;
  };

  const launch = async (home: string): Promise<Instance> => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) {
      if (/^(TELEGRAM|SLACK|DISCORD)_/.test(key) || ['GATEWAY_ALLOW_ALL_USERS', 'REDIS_URL', 'DATABASE_URL', 'HERMES_POSTGRES_URL'].includes(key)) delete env[key];
    }
    Object.assign(env, {
      [KEY_VAR]: 'sk-fake',
      TELEGRAM_BOT_TOKEN: api.token,
      TELEGRAM_ALLOWED_USERS: String(ADA),
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
      TELEGRAM_WEBHOOK_PORT: String(port),
      TELEGRAM_WEBHOOK_SECRET: SECRET,
    });
    let output = '';
    const child = spawn(process.execPath, [builtCli, '--home', home, 'gateway'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const instance = { port, home, child, output: () => output };
    instances.push(instance);
    await until(() => output.includes('started telegram') || child.exitCode !== null, 'the gateway to start or exit', 30_000);
    return instance;
  };

  const stop = async (instance: Instance) => {
    if (instance.child.exitCode === null && instance.child.signalCode === null) {
      const exited = new Promise((resolve) => instance.child.once('exit', resolve));
      instance.child.kill('SIGTERM');
      await exited;
    }
  };

  beforeAll(async () => {
    [postgres, redis, api] = await Promise.all([startPostgres(), startRedis(), new FakeTelegramApi().start()]);
    scratch = mkdtempSync(join(tmpdir(), 'hermes-pg-e2e-'));
    model = await startFakeOpenAI({ fallback: e2eModel(scratch) });
    // The cluster trusts loopback, so any password passes: it is there to be kept out of the output.
    databaseUrl = (await postgres.createDatabase()).replace('postgres@', `postgres:${PASSWORD}@`);
  }, 90_000);

  afterAll(async () => {
    for (const instance of instances) await stop(instance);
    await model?.close();
    await api?.close();
    await redis?.stop();
    await postgres?.stop();
    for (const instance of instances) rmSync(instance.home, { recursive: true, force: true });
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 60_000);

  it('a thread\'s next message, sent to the other instance, is answered with the whole history; after the first stops, the second still has it all', async () => {
    const a = await launch(makeHome(databaseUrl));
    const b = await launch(makeHome(databaseUrl));
    for (const instance of [a, b]) expect(instance.output(), instance.output()).toContain('started telegram');
    expect(await send(a, 'remember the word PLUM [H1]')).toBe(200);
    await api.waitFor(() => answers().length === 1, 'the first answer');
    expect(await send(b, 'what was the word? [H2]')).toBe(200);
    await api.waitFor(() => answers().some((text) => text.includes('[H2]')), 'the answer to the second message');
    expect(usersSeenWith('[H2]')).toEqual(['remember the word PLUM [H1]', 'what was the word? [H2]']);
    // A is gone: B alone answers, from what the database holds.
    await stop(a);
    expect(await send(b, 'and again? [H3]')).toBe(200);
    await api.waitFor(() => answers().some((text) => text.includes('[H3]')), 'the answer after A stopped');
    expect(usersSeenWith('[H3]')).toEqual(['remember the word PLUM [H1]', 'what was the word? [H2]', 'and again? [H3]']);
    expect(answers().filter((text) => text.includes('[H2]') || text.includes('[H3]'))).toHaveLength(2);
    for (const instance of [a, b]) {
      expect(existsSync(join(instance.home, 'state.db')), 'no state.db in either home').toBe(false);
      expect(instance.output()).not.toContain(PASSWORD);
    }
  }, 120_000);

  it('an unreachable database stops the gateway at start with one line naming DATABASE_URL and host:port, without the password or a stack', async () => {
    const port = await freePort();
    const instance = await launch(makeHome(`postgres://hermes:${PASSWORD}@127.0.0.1:${port}/state`));
    await until(() => instance.child.exitCode !== null, 'the gateway to exit', 30_000);
    expect(instance.child.exitCode).not.toBe(0);
    const output = instance.output();
    expect(output).toMatch(new RegExp(`DATABASE_URL.*127\\.0\\.0\\.1:${port}`));
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toMatch(/^\s+at /m);
  }, 60_000);
});
