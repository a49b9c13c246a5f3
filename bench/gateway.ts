/*
 * The gateway on Telegram: 200 chats × 5 messages through the fake Bot API, each chat a user
 * who sends the next message once the previous one is answered. Three rows:
 *   - baseline: a bare grammY runner bot that answers "ok" (transport floor, no gateway);
 *   - the gateway with an agent that answers at once (the gateway core's own cost);
 *   - the gateway with the real agent, SQLite sessions and the fake model (in its own thread) answering at once.
 * Then the interrupt latency: a chat runs a sleeping execute_code script, a second message
 * arrives, and the time until the script's process group is dead is measured.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { run as runBot, sequentialize } from '@grammyjs/runner';
import { apiThrottler } from '@grammyjs/transformer-throttler';
import { Bot, type Context } from 'grammy';
import { TelegramAdapter } from '../adapters/telegram/index.js';
import type { AgentRunner } from '../src/agent/types.js';
import { startGateway } from '../src/cli/commands/gateway.js';
import { loadConfig, defaultConfig } from '../src/config/index.js';
import { groupAlive } from '../src/environments/index.js';
import { Gateway } from '../src/gateway/index.js';
import { startFakeOpenAI } from '../test/fakes/openai-server.js';
import { e2eModel, waitForPgid } from '../test/fakes/slack-e2e-model.js';
import { FakeTelegramApi, type TelegramCall } from '../test/fakes/telegram-api.js';
import { fmt, percentile } from './stats.js';

const CHATS = 200;
const MESSAGES_PER_CHAT = 5;
const INTERRUPTS = 20;
const KEY_VAR = 'HERMES_BENCH_MODEL_KEY';

interface LoadFigures {
  seconds: number;
  perSecond: number;
  latencies: number[];
}

/** Milliseconds on a clock both threads share. */
const now = () => performance.timeOrigin + performance.now();

/**
 * The fake Bot API in a worker thread, as the real one sits on another machine: its CPU does
 * not count against the gateway's event loop.
 */
class FakeTelegramThread {
  private readonly worker: Worker;
  private readonly listeners = new Set<(chatId: string, text: string, at: number) => void>();
  apiRoot = '';
  token = '';

  private constructor() {
    this.worker = new Worker(new URL(import.meta.url), { workerData: { role: FAKE_ROLE } });
    this.worker.on('message', (message: WorkerEvent) => {
      if (message.type === 'sent') for (const listener of this.listeners) listener(message.chatId, message.text, message.at);
    });
  }

  static async start(): Promise<FakeTelegramThread> {
    const fake = new FakeTelegramThread();
    const ready = await new Promise<WorkerEvent & { type: 'ready' }>((resolve, reject) => {
      fake.worker.once('error', reject);
      fake.worker.on('message', (message: WorkerEvent) => message.type === 'ready' && resolve(message));
    });
    fake.apiRoot = ready.apiRoot;
    fake.token = ready.token;
    return fake;
  }

  inject(chatId: number, text: string): void {
    this.worker.postMessage({ type: 'inject', chatId, text });
  }

  onSent(listener: (chatId: string, text: string, at: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

const FAKE_ROLE = 'hermes-bench-fake-telegram';
const MODEL_ROLE = 'hermes-bench-fake-model';
type WorkerEvent = { type: 'ready'; apiRoot: string; token: string } | { type: 'sent'; chatId: string; text: string; at: number };

/** The fake model answering "ok" in a worker thread, like the Bot API: across the network, not on our loop. */
async function startModelThread(): Promise<{ url: string; close(): Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: MODEL_ROLE } });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (message: { url: string }) => resolve(message.url));
  });
  return { url, close: async () => void (await worker.terminate()) };
}

async function serveFakeModel(): Promise<void> {
  const model = await startFakeOpenAI({ fallback: { text: 'ok' } });
  parentPort!.postMessage({ url: model.url });
}

/** The worker side: serves the fake Bot API and reports every sendMessage with its time. */
async function serveFakeTelegram(): Promise<void> {
  const api = await new FakeTelegramApi().start();
  api.recordCalls = false;
  api.subscribe((call: TelegramCall) => {
    if (call.method !== 'sendMessage') return;
    parentPort!.postMessage({ type: 'sent', chatId: String(call.params.chat_id), text: String(call.params.text), at: now() });
  });
  parentPort!.on('message', (message: { type: 'inject'; chatId: number; text: string }) => {
    api.injectMessage({ chatId: message.chatId, userId: message.chatId, text: message.text });
  });
  parentPort!.postMessage({ type: 'ready', apiRoot: api.apiRoot, token: api.token });
}

const role = isMainThread ? undefined : (workerData as { role?: string } | undefined)?.role;
if (role === FAKE_ROLE) void serveFakeTelegram();
if (role === MODEL_ROLE) void serveFakeModel();

/** Drives CHATS users until every message has its answer; latency is update injected → sendMessage. */
async function drive(fake: FakeTelegramThread): Promise<LoadFigures> {
  const latencies: number[] = [];
  const sentAt = new Map<string, number>();
  const left = new Map<string, number>();
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  let open = CHATS;
  const inject = (chatId: number) => {
    sentAt.set(String(chatId), now());
    fake.inject(chatId, `question ${MESSAGES_PER_CHAT - (left.get(String(chatId)) ?? 0) + 1}`);
  };
  const unsubscribe = fake.onSent((chat, text, at) => {
    const started = sentAt.get(chat);
    if (started === undefined || text.startsWith('⚙️')) return;
    latencies.push(at - started);
    sentAt.delete(chat);
    const remaining = (left.get(chat) ?? 0) - 1;
    left.set(chat, remaining);
    if (remaining > 0) inject(Number(chat));
    else if (--open === 0) done();
  });
  const start = now();
  for (let i = 0; i < CHATS; i++) {
    const chatId = 10_000 + i;
    left.set(String(chatId), MESSAGES_PER_CHAT);
    inject(chatId);
  }
  await finished;
  const seconds = (now() - start) / 1000;
  unsubscribe();
  return { seconds, perSecond: latencies.length / seconds, latencies };
}

/** `throttled`: Telegram's rates, as the gateway keeps them; off, the transport floor itself. */
async function baseline(throttled: boolean): Promise<LoadFigures> {
  const api = await FakeTelegramThread.start();
  const bot = new Bot(api.token, { client: { apiRoot: api.apiRoot } });
  // The gateway keeps to Telegram's rates (30 messages a second, one a second per chat): so does the baseline.
  if (throttled) bot.api.config.use(apiThrottler());
  bot.use(sequentialize((ctx: Context) => ctx.chat?.id.toString()));
  bot.on('message:text', async (ctx) => {
    await ctx.api.sendChatAction(ctx.chat.id, 'typing');
    await ctx.reply('ok');
  });
  const handle = runBot(bot, { runner: { fetch: { timeout: 30 }, silent: true } });
  try {
    return await drive(api);
  } finally {
    await handle.stop();
    await api.close();
  }
}

async function gatewayWithInstantAgent(throttle: boolean): Promise<LoadFigures> {
  const api = await FakeTelegramThread.start();
  const agent: AgentRunner = {
    runTurn: async () => ({ text: 'ok', status: 'completed' }),
    newSession: async () => {},
    sessionInfo: () => undefined,
    describe: () => ({ model: 'instant', backend: 'none' }),
    close: async () => {},
  };
  const gateway = new Gateway({ agent, config: defaultConfig(), env: { GATEWAY_ALLOW_ALL_USERS: 'true' } });
  gateway.register(new TelegramAdapter({ token: api.token, apiRoot: api.apiRoot, throttle }));
  await gateway.start();
  try {
    return await drive(api);
  } finally {
    await gateway.stop();
    await api.close();
  }
}

interface FakeBotApi {
  apiRoot: string;
  token: string;
  close(): Promise<void>;
}

async function withRealAgent<F extends FakeBotApi, T>(
  startFake: () => Promise<F>,
  startModel: (home: string) => Promise<{ url: string; close(): Promise<void> }>,
  body: (api: F, home: string) => Promise<T>,
  throttle = true,
): Promise<T> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-gateway-'));
  const api = await startFake();
  const model = await startModel(home);
  const env: NodeJS.ProcessEnv = { ...process.env, [KEY_VAR]: 'sk-bench', TELEGRAM_BOT_TOKEN: api.token, GATEWAY_ALLOW_ALL_USERS: 'true' };
  delete env.TELEGRAM_WEBHOOK_URL;
  const loaded = loadConfig({
    home,
    loadEnv: false,
    env,
    overrides: {
      // Whole replies, as the bare bot sends them: a streamed draft would spend the chat's send slots.
      model: { base_url: model.url, name: 'fake-model', api_key_env: KEY_VAR, stream: false },
      platforms: { telegram: { api_root: api.apiRoot, throttle }, slack: { enabled: false }, discord: { enabled: false }, web: { enabled: false } },
      // The scripts write their pid where the bench reads it: measure the gateway, not the sandbox.
      terminal: { platform_backend: 'local' },
    },
  });
  const running = await startGateway(loaded, { env });
  try {
    return await body(api, home);
  } finally {
    await running.stop();
    await model.close();
    await api.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Second message injected → the running script's process group is dead, in ms. */
async function interruptLatencies(): Promise<number[]> {
  return withRealAgent(
    () => new FakeTelegramApi().start(),
    // In this thread: the scripted model reads the script's pid file from `home`.
    (home) => startFakeOpenAI({ fallback: e2eModel(home) }),
    async (api, home) => {
      const out: number[] = [];
      for (let i = 0; i < INTERRUPTS; i++) {
        const chatId = 50_000 + i;
        const name = `I${i}`;
        api.injectMessage({ chatId, userId: chatId, text: `sleep please [SLOW:${name}]` });
        const pgid = await waitForPgid(home, name);
        const start = performance.now();
        api.injectMessage({ chatId, userId: chatId, text: 'never mind' });
        while (groupAlive(pgid)) await sleep(1);
        out.push(performance.now() - start);
        // Let the answer to the second message arrive before the next round.
        await api.waitFor(() => api.sentTo(chatId).some((sent) => sent.text.includes('never mind')), 'the answer');
      }
      return out;
    },
  );
}

function row(name: string, figures: LoadFigures, base?: LoadFigures): string {
  const p50 = percentile(figures.latencies, 50);
  const p99 = percentile(figures.latencies, 99);
  const ratio = base
    ? `  (${fmt(figures.perSecond / base.perSecond)}× baseline msg/s, p50 ${fmt(p50 / percentile(base.latencies, 50))}×, p99 ${fmt(p99 / percentile(base.latencies, 99))}× baseline)`
    : '';
  return `${name.padEnd(50)} ${fmt(figures.perSecond, 0).padStart(6)} msg/s   p50 ${fmt(p50, 1).padStart(7)} ms   p99 ${fmt(p99, 1).padStart(7)} ms${ratio}`;
}

const realAgentRun = (throttle: boolean) => withRealAgent(() => FakeTelegramThread.start(), startModelThread, (api) => drive(api), throttle);

/** The three rows, either at Telegram's rates or with them off for both the bare bot and the gateway. */
async function loadRows(throttled: boolean): Promise<void> {
  const rates = throttled ? "at Telegram's rates" : 'rates off';
  const base = await baseline(throttled);
  console.log(row(throttled ? 'baseline: grammY runner bot, same throttler' : 'baseline: grammY runner bot, no throttler', base));
  const instant = await gatewayWithInstantAgent(throttled);
  console.log(row(`gateway + agent that answers at once, ${rates}`, instant, base));
  const real = await realAgentRun(throttled);
  console.log(row(`gateway + real agent + SQLite, ${rates}`, real, base));
}

/**
 * `HERMES_BENCH_GATEWAY_PROFILE=1`: only the real-agent row with the rates off, twice (a warm-up,
 * then the measured run), for `node --cpu-prof` to profile the gateway's own path.
 */
async function profileRun(): Promise<void> {
  await realAgentRun(false);
  console.log(row('gateway + real agent + SQLite, rates off (profiled)', await realAgentRun(false)));
}

/** Prints the figures; asserts nothing. */
export async function run(): Promise<void> {
  if (process.env.HERMES_BENCH_GATEWAY_PROFILE === '1') return profileRun();
  console.log(`${CHATS} chats × ${MESSAGES_PER_CHAT} messages, fake Telegram Bot API on 127.0.0.1 (in a worker thread), update → sendMessage latency`);
  console.log(`gateway.max_concurrent_turns = ${defaultConfig().gateway.max_concurrent_turns}`);
  // HERMES_BENCH_GATEWAY_RATES=off: only the rows with the rates off (the throttled rows take minutes on a busy machine).
  const ratesOffOnly = process.env.HERMES_BENCH_GATEWAY_RATES === 'off';
  if (!ratesOffOnly) await loadRows(true);
  await loadRows(false);
  if (ratesOffOnly) return;

  if (spawnSync('python3', ['--version']).status !== 0) {
    console.log('interrupt latency: skipped (python3 is not installed)');
    return;
  }
  const interrupts = await interruptLatencies();
  console.log(
    `interrupt latency (${INTERRUPTS} runs, second message injected → script's process group dead): ` +
      `p50 ${fmt(percentile(interrupts, 50), 1)} ms, p99 ${fmt(percentile(interrupts, 99), 1)} ms, max ${fmt(Math.max(...interrupts), 1)} ms`,
  );
}
