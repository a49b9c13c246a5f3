/*
 * Several instances (coordination.backend: redis) against one: `hermes gateway` processes (the
 * built CLI) on one HERMES_HOME (one state.db) and one Redis, behind the fake Telegram API, each
 * update POSTed to an instance's webhook in turn (round robin); the fake model answers at once.
 *   - the interrupt across instances: a script runs on A, a new message is POSTed to B, the
 *     time until the script's process group is dead (target p99 ≤ 100 ms); the baseline is the
 *     same with one instance and no coordination;
 *   - throughput: chats × messages, each chat's next message once the last is answered, with
 *     one instance (no coordination) and with three, as a ratio: first with Telegram's rates off
 *     (`platforms.telegram.throttle: false`: the instances, the fakes and Redis share this
 *     machine's cores, and whatever else runs on it), then at Telegram's rates, which three
 *     instances share in Redis (so they send no faster than one). Each figure comes with the
 *     cores the instances and the fakes kept busy, and the machine's load average, since on a
 *     shared machine those say more about the bound than the ratio does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { groupAlive } from '../src/environments/index.js';
import { startFakeOpenAI } from '../test/fakes/openai-server.js';
import { e2eModel, waitForPgid } from '../test/fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../test/fakes/telegram-api.js';
import { fmt, percentile } from './stats.js';

const INTERRUPTS = 20;
/** At Telegram's rates a chat gets about one answer a second: fewer messages, or the run takes minutes. */
const RATED_LOAD = { chats: 40, perChat: 4 };
const FREE_LOAD = { chats: 40, perChat: 15 };
const KEY_VAR = 'HERMES_BENCH_SCALE_OUT_KEY';
/** gateway.max_concurrent_turns's default, which the instances run with. */
const MAX_TURNS = 8;
const SECRET = 'bench-secret';
const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');

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
  post(instance: number, chat: number, text: string): Promise<void>;
  /** CPU seconds the instances have used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

interface GroupOptions {
  count: number;
  redisUrl?: string;
  /** Telegram's rates kept (shared in Redis when there is one). */
  throttle: boolean;
}

let updateId = 0;

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** A process's user and system CPU seconds, from /proc (0 once it is gone). */
function cpuOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Starts one `hermes gateway` process and waits until its webhook listens. */
async function startInstance(home: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, '--home', home, 'gateway'], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  while (!output.includes('started telegram')) {
    if (child.exitCode !== null) throw new Error(`hermes gateway did not start: ${output}`);
    await sleep(50);
  }
  return child;
}

async function startGroup(options: GroupOptions): Promise<Group> {
  const api = await new FakeTelegramApi().start();
  api.recordCalls = false;
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-scale-'));
  const model = await startFakeOpenAI({ fallback: e2eModel(home) });
  const config = {
    model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR },
    terminal: { platform_backend: 'local' },
    cron: { enabled: false },
    platforms: { telegram: { api_root: api.apiRoot, throttle: options.throttle }, slack: { enabled: false }, discord: { enabled: false }, web: { enabled: false } },
    ...(options.redisUrl ? { coordination: { backend: 'redis', redis_url: options.redisUrl } } : {}),
  };
  writeFileSync(join(home, 'config.yaml'), stringify(config));
  // Nothing of this machine's own platforms, Redis or HERMES_* settings.
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(base)) {
    if (/^(TELEGRAM|SLACK|DISCORD|HERMES)_/.test(key) || key === 'GATEWAY_ALLOW_ALL_USERS' || key === 'REDIS_URL') delete base[key];
  }
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  try {
    for (let i = 0; i < options.count; i++) {
      const port = await freePort();
      children.push(
        await startInstance(home, {
          ...base,
          [KEY_VAR]: 'sk-fake',
          TELEGRAM_BOT_TOKEN: api.token,
          GATEWAY_ALLOW_ALL_USERS: 'true',
          TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
          TELEGRAM_WEBHOOK_PORT: String(port),
          TELEGRAM_WEBHOOK_SECRET: SECRET,
        }),
      );
      ports.push(port);
    }
  } catch (error) {
    for (const child of children) child.kill('SIGKILL');
    throw error;
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
    post,
    cpuSeconds: () => children.reduce((sum, child) => sum + cpuOf(child.pid), 0),
    async stop() {
      await Promise.all(
        children.map(async (child) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }),
      );
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

/**
 * Waits for a chat's n-th `[T]` answer, counted as the fake takes each sendMessage (scanning
 * every message sent at every call would spend the CPU the instances are measured on).
 */
function answerCounter(api: FakeTelegramApi): { answered(chat: number, n: number): Promise<void>; close(): void } {
  const counts = new Map<string, number>();
  const waiting = new Map<string, { n: number; resolve: () => void }>();
  const unsubscribe = api.subscribe((call) => {
    if (call.method !== 'sendMessage' || !String(call.params.text ?? '').includes('[T]')) return;
    const chat = String(call.params.chat_id);
    const count = (counts.get(chat) ?? 0) + 1;
    counts.set(chat, count);
    const waiter = waiting.get(chat);
    if (waiter && count >= waiter.n) {
      waiting.delete(chat);
      waiter.resolve();
    }
  });
  return {
    answered: (chat, n) =>
      (counts.get(String(chat)) ?? 0) >= n
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`scale-out: chat ${chat} got no answer ${n} within 120 s`)), 120_000);
            waiting.set(String(chat), { n, resolve: () => (clearTimeout(timer), resolve()) });
          }),
    close: unsubscribe,
  };
}

interface Throughput {
  perSecond: number;
  /** Cores busy on average: the instances, and this process (the fakes). */
  instanceCores: number;
  fakeCores: number;
}

/** Messages answered per second, every chat sending its next message once answered, round robin over the instances. */
async function throughput(group: Group, instances: number, load: { chats: number; perChat: number }): Promise<Throughput> {
  const counter = answerCounter(group.api);
  const start = performance.now();
  const cpuBefore = group.cpuSeconds();
  const selfBefore = process.cpuUsage();
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: load.chats }, async (_, c) => {
        const chat = 90_000 + c;
        for (let m = 0; m < load.perChat; m++) {
          await group.post(next++ % instances, chat, `message ${m} [T]`);
          await counter.answered(chat, m + 1);
        }
      }),
    );
  } finally {
    counter.close();
  }
  const seconds = (performance.now() - start) / 1000;
  const self = process.cpuUsage(selfBefore);
  return {
    perSecond: (load.chats * load.perChat) / seconds,
    instanceCores: (group.cpuSeconds() - cpuBefore) / seconds,
    fakeCores: (self.user + self.system) / 1e6 / seconds,
  };
}

/** One group's figures, stopped whatever happens. */
async function measure<T>(options: GroupOptions, work: (group: Group) => Promise<T>): Promise<T> {
  const group = await startGroup(options);
  try {
    return await work(group);
  } finally {
    await group.stop();
  }
}

const latencyText = (values: number[]) => `p50 ${fmt(percentile(values, 50), 1)} ms, p99 ${fmt(percentile(values, 99), 1)} ms, max ${fmt(Math.max(...values), 1)} ms`;
const loadText = (load: { chats: number; perChat: number }) => `${load.chats} chats × ${load.perChat} messages, round robin`;

/** Prints the figures; asserts nothing. */
export async function run(): Promise<void> {
  if (spawnSync('redis-server', ['--version']).status !== 0 || spawnSync('python3', ['--version']).status !== 0) {
    console.log('scale-out: skipped (needs redis-server and python3)');
    return;
  }
  const redis = await startRedis();
  try {
    const free = { throttle: false };
    const rated = { throttle: true };
    const freeOne = await measure({ count: 1, ...free }, (group) => throughput(group, 1, FREE_LOAD));
    const freeThree = await measure({ count: 3, redisUrl: redis.url, ...free }, (group) => throughput(group, 3, FREE_LOAD));
    const ratedOne = await measure({ count: 1, ...rated }, async (group) => ({ base: await interrupts(group, 0), throughput: await throughput(group, 1, RATED_LOAD) }));
    const ratedThree = await measure({ count: 3, redisUrl: redis.url, ...rated }, async (group) => ({
      across: await interrupts(group, 1),
      throughput: await throughput(group, 3, RATED_LOAD),
    }));
    console.log(`interrupt, one instance (message to the instance running the script; ${INTERRUPTS} runs): ${latencyText(ratedOne.base)}`);
    console.log(
      `interrupt across instances (script on A, message to B): ${latencyText(ratedThree.across)}; ` +
        `p99 ${fmt(percentile(ratedThree.across, 99) / percentile(ratedOne.base, 99))}× one instance's (target ≤ 100 ms)`,
    );
    const cores = (one: Throughput, three: Throughput) =>
      `  (busy cores on average, of ${availableParallelism()}: one instance ${fmt(one.instanceCores, 1)} + the fakes ${fmt(one.fakeCores, 1)}; ` +
      `three ${fmt(three.instanceCores, 1)} + ${fmt(three.fakeCores, 1)})`;
    console.log(
      `throughput, Telegram's rates off (${loadText(FREE_LOAD)}): one instance ${fmt(freeOne.perSecond, 0)} msg/s, ` +
        `three ${fmt(freeThree.perSecond, 0)} msg/s (${fmt(freeThree.perSecond / freeOne.perSecond)}× one)`,
    );
    console.log(cores(freeOne, freeThree));
    console.log(`  (load average at the end: ${loadavg().map((value) => fmt(value, 1)).join(', ')}: other work on the machine takes its share of the cores)`);
    console.log(
      `throughput at Telegram's rates (${loadText(RATED_LOAD)}): one instance ${fmt(ratedOne.throughput.perSecond, 0)} msg/s, ` +
        `three sharing the rates in Redis ${fmt(ratedThree.throughput.perSecond, 0)} msg/s (${fmt(ratedThree.throughput.perSecond / ratedOne.throughput.perSecond)}× one)`,
    );
    console.log(cores(ratedOne.throughput, ratedThree.throughput));
    console.log(
      `  (each instance runs at most gateway.max_concurrent_turns (${MAX_TURNS}) turns at once, and a turn's answer waits for its chat's ` +
        'one-a-second slot: three instances run three times the turns, within the rates they share)',
    );
  } finally {
    await redis.stop();
  }
}
