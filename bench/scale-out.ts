/*
 * Several instances (coordination.backend: redis) against one: three `hermes gateway`
 * instances in this process on one Redis and one state.db, behind the fake Telegram API, each
 * update POSTed to an instance's webhook in turn (round robin).
 *   - the interrupt across instances: a script runs on A, a new message is POSTed to B, the
 *     time until the script's process group is dead (target p99 ≤ 100 ms); the baseline is the
 *     same with one instance and no coordination;
 *   - throughput: chats × messages, each chat's next message once the last is answered, with
 *     one instance (no coordination) and with three, as a ratio. The three share this process's
 *     event loop; each keeps to Telegram's rates with its own throttler (the bound here), so
 *     the ratio shows the throttlers adding up, not the gain of more machines.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway, type RunningGateway } from '../src/cli/commands/gateway.js';
import { loadConfig } from '../src/config/index.js';
import { groupAlive } from '../src/environments/index.js';
import { startFakeOpenAI } from '../test/fakes/openai-server.js';
import { e2eModel, waitForPgid } from '../test/fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../test/fakes/telegram-api.js';
import { fmt, percentile } from './stats.js';

const INTERRUPTS = 20;
const CHATS = 40;
const MESSAGES_PER_CHAT = 4;
const KEY_VAR = 'HERMES_BENCH_SCALE_OUT_KEY';
const SECRET = 'bench-secret';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** A throwaway redis-server on loopback (like test/helpers/redis.ts, which the build leaves out). */
async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { cwd: dir, stdio: 'ignore' });
  for (;;) {
    if (child.exitCode !== null) throw new Error('redis-server exited at start');
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    await sleep(50);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Group {
  api: FakeTelegramApi;
  home: string;
  ports: number[];
  post(instance: number, chat: number, text: string): Promise<void>;
  stop(): Promise<void>;
}

let updateId = 0;

async function startGroup(count: number, redisUrl: string | undefined): Promise<Group> {
  const api = await new FakeTelegramApi().start();
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-scale-'));
  const model = await startFakeOpenAI({ fallback: e2eModel(home) });
  const running: RunningGateway[] = [];
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      [KEY_VAR]: 'sk-fake',
      TELEGRAM_BOT_TOKEN: api.token,
      GATEWAY_ALLOW_ALL_USERS: 'true',
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
      TELEGRAM_WEBHOOK_PORT: String(port),
      TELEGRAM_WEBHOOK_SECRET: SECRET,
    };
    const loaded = loadConfig({
      home,
      loadEnv: false,
      env,
      overrides: {
        model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR },
        terminal: { platform_backend: 'local' },
        cron: { enabled: false },
        platforms: { telegram: { api_root: api.apiRoot }, slack: { enabled: false }, discord: { enabled: false }, web: { enabled: false } },
        ...(redisUrl ? { coordination: { backend: 'redis' as const, redis_url: redisUrl } } : {}),
      },
    });
    running.push(await startGateway(loaded, { env }));
    ports.push(port);
  }
  const post = (instance: number, chat: number, text: string) =>
    new Promise<void>((resolve, reject) => {
      updateId += 1;
      const body = JSON.stringify({
        update_id: updateId,
        message: { message_id: updateId, date: 1, chat: { id: chat, type: 'private', first_name: 'U' }, from: { id: chat, is_bot: false, first_name: 'U' }, text },
      });
      const req = request(
        { host: '127.0.0.1', port: ports[instance], path: '/hook', method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET } },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    api,
    home,
    ports,
    post,
    async stop() {
      for (const instance of running) await instance.stop();
      await model.close();
      await api.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The script starts on instance 0; the new message goes to `to`; ms until its group is dead. */
async function interrupts(group: Group, to: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < INTERRUPTS; i++) {
    const chat = 70_000 + i;
    const name = `X${i}`;
    await group.post(0, chat, `sleep please [SLOW:${name}]`);
    const pgid = await waitForPgid(group.home, name);
    const start = performance.now();
    await group.post(to, chat, 'never mind');
    while (groupAlive(pgid)) await sleep(1);
    out.push(performance.now() - start);
    await group.api.waitFor(() => group.api.sentTo(chat).some((sent) => sent.text.includes('never mind')), 'the answer');
  }
  return out;
}

/** Messages answered per second, every chat sending its next message once answered. */
async function throughput(group: Group, instances: number): Promise<number> {
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CHATS }, async (_, c) => {
      const chat = 90_000 + c;
      for (let m = 0; m < MESSAGES_PER_CHAT; m++) {
        await group.post(next++ % instances, chat, `message ${m} [T]`);
        await group.api.waitFor(() => group.api.sentTo(chat).filter((sent) => sent.text.includes('[T]')).length === m + 1, 'the answer');
      }
    }),
  );
  return (CHATS * MESSAGES_PER_CHAT) / ((performance.now() - start) / 1000);
}

const latencyText = (values: number[]) => `p50 ${fmt(percentile(values, 50), 1)} ms, p99 ${fmt(percentile(values, 99), 1)} ms, max ${fmt(Math.max(...values), 1)} ms`;

/** Prints the figures; asserts nothing. */
export async function run(): Promise<void> {
  if (spawnSync('redis-server', ['--version']).status !== 0 || spawnSync('python3', ['--version']).status !== 0) {
    console.log('scale-out: skipped (needs redis-server and python3)');
    return;
  }
  const redis = await startRedis();
  try {
    const one = await startGroup(1, undefined);
    let base: number[];
    let perSecondOne: number;
    try {
      base = await interrupts(one, 0);
      perSecondOne = await throughput(one, 1);
    } finally {
      await one.stop();
    }
    const three = await startGroup(3, redis.url);
    let across: number[];
    let perSecondThree: number;
    try {
      across = await interrupts(three, 1);
      perSecondThree = await throughput(three, 3);
    } finally {
      await three.stop();
    }
    console.log(`interrupt, one instance (message to the instance running the script; ${INTERRUPTS} runs): ${latencyText(base)}`);
    console.log(`interrupt across instances (script on A, message to B): ${latencyText(across)}; p99 ${fmt(percentile(across, 99) / percentile(base, 99))}× one instance's (target ≤ 100 ms)`);
    console.log(
      `throughput (${CHATS} chats × ${MESSAGES_PER_CHAT} messages, round robin): one instance ${fmt(perSecondOne, 0)} msg/s, ` +
        `three instances in one process ${fmt(perSecondThree, 0)} msg/s (${fmt(perSecondThree / perSecondOne)}× one)`,
    );
    console.log('  (each instance keeps to Telegram\'s rates with its own throttler, so three send up to three times what one bot may)');
  } finally {
    await redis.stop();
  }
}
