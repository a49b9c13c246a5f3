/*
 * Streamed replies per platform fake (Telegram, Slack, Discord, the web chat), through
 * `hermes gateway` as the CLI starts it, the real agent and the fake model streaming a
 * 400-word answer (12-character chunks, 5 ms apart). For each answer: the time from the
 * model's first token (the fake model wrote it) to the first text the fake platform shows
 * (Telegram's first draft, Slack's chat.startStream, Discord's first message, the page's
 * first assistant entry on its event stream), p50 and p95 (target p50 ≤ 300 ms), and the
 * updates after that first one (edits, appends, drafts, the finishing call included). The
 * fakes run in the gateway's process, so their work counts against its event loop.
 */
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeDiscord } from '../test/fakes/discord-server.js';
import { FakeSlack } from '../test/fakes/slack-server.js';
import { removeHome, startStreamGateway, words, type StreamGateway } from '../test/fakes/stream-harness.js';
import { FakeTelegramApi } from '../test/fakes/telegram-api.js';
import type { FakeReply } from '../test/fakes/openai-server.js';
import { fmt, percentile } from './stats.js';

const ANSWERS = 12;
const WORDS = 400;
const TARGET_P50_MS = 300;
const ADA = 1001;
const READING_MS = 1500;

interface Sample {
  /** Milliseconds from the model's first token to the first visible text. */
  firstVisibleMs: number;
  /** Updates of the reply after it first showed. */
  updates: number;
}

/** One platform: starts its fake and the gateway, asks one question, and reads what the fake saw. */
interface PlatformRun {
  name: string;
  mode: string;
  start(): Promise<StreamGateway>;
  /** Sends the i-th question; resolves with the sample once the answer `text` is finished in place. */
  ask(i: number, text: string, firstToken: () => number): Promise<Sample>;
  close(): Promise<void>;
}

async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`bench streaming: no ${what} within ${timeoutMs} ms`);
    await sleep(5);
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function telegram(): PlatformRun {
  let api: FakeTelegramApi;
  return {
    name: 'Telegram',
    mode: 'private chat, message draft',
    async start() {
      api = await new FakeTelegramApi({ enforceRates: true }).start();
      const env: NodeJS.ProcessEnv = { ...process.env, TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
      delete env.TELEGRAM_WEBHOOK_URL;
      return startStreamGateway('telegram', { api_root: api.apiRoot }, env);
    },
    async ask(i, text, firstToken) {
      const from = Date.now();
      api.injectMessage({ chatId: ADA, userId: ADA, text: `question ${i}` });
      await until(() => api.sentTo(ADA).some((message) => message.text === text), 'finished Telegram answer');
      const shows = ['sendMessageDraft', 'sendMessage', 'editMessageText']
        .flatMap((method) => api.callsOf(method))
        .filter((call) => call.at >= from && String(call.params.chat_id) === String(ADA))
        .sort((a, b) => a.at - b.at);
      return { firstVisibleMs: shows[0].at - firstToken(), updates: shows.length - 1 };
    },
    async close() {
      await api.close();
    },
  };
}

function slack(): PlatformRun {
  let fake: FakeSlack;
  const seen: Array<{ method: string; at: number; thread: string }> = [];
  return {
    name: 'Slack',
    mode: 'thread, chat stream',
    async start() {
      fake = await new FakeSlack().listen();
      fake.enforceRates = true;
      fake.on('call', (call: { method: string; params: Record<string, unknown> }) => {
        seen.push({ method: call.method, at: Date.now(), thread: String(call.params.thread_ts ?? call.params.ts ?? '') });
      });
      const env = { ...process.env, SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken, SLACK_ALLOWED_USERS: 'U1' };
      return startStreamGateway('slack', { mode: 'socket', api_url: fake.apiUrl }, env);
    },
    async ask(i, text, firstToken) {
      const thread = fake.nextTs();
      const from = Date.now();
      await fake.deliverSocket(fake.eventBody({ type: 'app_mention', channel: 'C1', user: 'U1', text: `<@${fake.botUserId}> question ${i}`, ts: thread }));
      await until(() => fake.messages.some((message) => message.text === text && fake.streams.get(message.ts)?.open === false), 'finished Slack stream');
      const shows = seen.filter((call) => call.at >= from && ['chat.startStream', 'chat.appendStream', 'chat.stopStream', 'chat.postMessage', 'chat.update'].includes(call.method));
      const first = shows.findIndex((call) => call.method === 'chat.startStream' || call.method === 'chat.postMessage');
      return { firstVisibleMs: shows[first].at - firstToken(), updates: shows.length - first - 1 };
    },
    async close() {
      await fake.close();
    },
  };
}

function discord(): PlatformRun {
  let fake: FakeDiscord;
  const seen: Array<{ method: string; path: string; at: number }> = [];
  return {
    name: 'Discord',
    mode: 'thread, sent once and edited (5 edits / 5 s per channel enforced)',
    async start() {
      fake = await new FakeDiscord().listen();
      fake.editRateLimit = { limit: 5, windowMs: 5000 };
      fake.on('call', (call: { method: string; path: string }) => seen.push({ method: call.method, path: call.path, at: Date.now() }));
      const env = { ...process.env, DISCORD_BOT_TOKEN: fake.token, DISCORD_ALLOWED_USERS: '800000000000000001' };
      return startStreamGateway('discord', { api_url: fake.apiUrl }, env);
    },
    async ask(i, text, firstToken) {
      const from = Date.now();
      const thread = fake.userMessage({ author: { id: '800000000000000001', username: 'alice' }, content: `question ${i}`, mentionBot: true });
      const parts = () => fake.messages.filter((m) => m.channel_id === thread).map((m) => m.content);
      await until(() => parts().join('\n') === text, 'finished Discord answer');
      const inThread = new RegExp(`^/channels/${thread}/messages(/\\d+)?$`);
      const shows = seen.filter((call) => call.at >= from && inThread.test(call.path) && (call.method === 'POST' || call.method === 'PATCH'));
      return { firstVisibleMs: shows[0].at - firstToken(), updates: shows.length - 1 };
    },
    async close() {
      await fake.close();
    },
  };
}

function web(): PlatformRun {
  let base = '';
  return {
    name: 'web chat',
    mode: 'the page’s event stream (re-rendered at most every 50 ms)',
    async start() {
      const port = await freePort();
      base = `http://127.0.0.1:${port}/`;
      return startStreamGateway('web', { port, auth: 'none' }, { ...process.env });
    },
    async ask(i, text, firstToken) {
      const json = { 'content-type': 'application/json' };
      const thread = ((await (await fetch(`${base}api/threads`, { method: 'POST', headers: json, body: '{}' })).json()) as { id: string }).id;
      const events = await fetch(`${base}api/threads/${thread}/events`);
      const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
      let first: number | undefined;
      let updates = 0;
      let buffer = '';
      const read = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const data = buffer.slice(0, end).split('\n').find((line) => line.startsWith('data: '));
            buffer = buffer.slice(end + 2);
            const event = data ? (JSON.parse(data.slice(6)) as { type: string; entry?: { kind: string; text?: string; streaming?: boolean } }) : undefined;
            if (event?.type !== 'entry' || event.entry?.kind !== 'assistant' || !event.entry.text) continue;
            if (first === undefined) first = Date.now();
            else updates++;
            if (event.entry.text === text && !event.entry.streaming) return;
          }
        }
      })();
      await fetch(`${base}api/threads/${thread}/messages`, { method: 'POST', headers: json, body: JSON.stringify({ text: `question ${i}` }) });
      await read;
      await reader.cancel();
      return { firstVisibleMs: first! - firstToken(), updates };
    },
    async close() {},
  };
}

async function measure(platform: PlatformRun): Promise<Sample[]> {
  const gw = await platform.start();
  const samples: Sample[] = [];
  try {
    for (let i = 0; i < ANSWERS; i++) {
      // Each answer its own (words() varies only with the seed's length), so a finished one is never taken for the next.
      const text = `Answer ${i + 1}: ${words(WORDS, platform.name)}`;
      let firstToken = NaN;
      const reply: FakeReply = { text, chunkChars: 12, paceMs: 5, onChunk: (n) => (n === 0 ? (firstToken = Date.now()) : undefined) };
      gw.model.enqueue(reply);
      samples.push(await platform.ask(i, text, () => firstToken));
      await gw.running.gateway.idle();
      // A person reads the answer before asking again: the chat's rate slot (Telegram's ~1 message/s) is free by then.
      await sleep(READING_MS);
    }
  } finally {
    await gw.stop();
    removeHome(gw.home);
    await platform.close();
  }
  return samples;
}

export async function run(): Promise<void> {
  console.log(
    `${ANSWERS} answers of ${WORDS} words per platform, streamed by the fake model (12 characters per chunk, 5 ms apart), through hermes gateway; the next question ${READING_MS} ms after an answer`,
  );
  console.log(`first visible text: from the model's first token to the first text at the fake platform (target p50 ≤ ${TARGET_P50_MS} ms)`);
  for (const platform of [telegram(), slack(), discord(), web()]) {
    let samples: Sample[];
    try {
      samples = await measure(platform);
    } catch (error) {
      console.log(`${platform.name}: failed (${(error as Error).message})`);
      continue;
    }
    const visible = samples.map((s) => s.firstVisibleMs);
    const updates = samples.map((s) => s.updates);
    const p50 = percentile(visible, 50);
    console.log(
      `${platform.name.padEnd(9)} (${platform.mode}): first visible p50 ${fmt(p50, 0)} ms, p95 ${fmt(percentile(visible, 95), 0)} ms` +
        ` (${p50 <= TARGET_P50_MS ? 'within' : 'over'} the target); updates per answer p50 ${percentile(updates, 50)}, max ${Math.max(...updates)}`,
    );
  }
}
