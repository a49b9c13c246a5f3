import type { Transformer } from 'grammy';
import { apiThrottler } from '@grammyjs/transformer-throttler';
import Bottleneck from 'bottleneck';
import { silentLogger, type Logger } from '../../src/shared/logger.js';

/** Bottleneck settings for one of the three limits, as grammY's throttler takes them. */
export type TelegramRateLimit = Bottleneck.ConstructorOptions;

/** Telegram's limits for one bot: bot-wide, per group chat, per private chat. */
export interface TelegramRates {
  global: TelegramRateLimit;
  group: TelegramRateLimit;
  out: TelegramRateLimit;
}

/** Telegram's published limits (grammY's throttler defaults): 30 a second per bot, 20 a minute per group, 1 a second per chat. */
export const TELEGRAM_RATES: TelegramRates = {
  global: { reservoir: 30, reservoirRefreshAmount: 30, reservoirRefreshInterval: 1000 },
  group: { maxConcurrent: 1, minTime: 1000, reservoir: 20, reservoirRefreshAmount: 20, reservoirRefreshInterval: 60_000 },
  out: { maxConcurrent: 1, minTime: 1000 },
};

/** Several instances of one bot keep its rates together on this connection (the coordination's `rateLimits.shared()`). */
export interface SharedRatesOptions {
  connection: Promise<Bottleneck.IORedisConnection>;
  /** The bot's numeric id (the part of its token before the colon): the limiters' names. */
  botId: string;
  /** Redis key prefix (default `hermes:`). */
  prefix?: string;
}

export interface TelegramThrottlerOptions {
  rates?: Partial<TelegramRates>;
  shared?: SharedRatesOptions;
  logger?: Logger;
}

export interface TelegramThrottler {
  transformer: Transformer;
  /** Stops the shared limits (their connection is the coordination's, closed with it); sends still queued never go out. */
  close(): Promise<void>;
}

/** How long a shared limit's state stays in Redis once nobody sends (Bottleneck's Group default). */
const SHARED_IDLE_MS = 5 * 60_000;

type Scheduler = <T>(chatKey: string, isGroup: boolean, call: () => Promise<T>) => Promise<T>;

/**
 * Telegram's rates for the calls it is given. Alone, grammY's throttler (Bottleneck in this
 * process). Shared, the same limits in Redis (Bottleneck's clustering), one state for every
 * instance of the bot: named by the bot's id, never its token. There each chat's limit keeps only
 * the spacing (`minTime`, reservoirs) in Redis and its one-at-a-time (`maxConcurrent`) in this
 * process, since Redis frees a running slot only by a job's expiration: an instance killed
 * mid-send would otherwise hold that chat's slot for every instance, for good.
 */
export function telegramThrottler(options: TelegramThrottlerOptions = {}): TelegramThrottler {
  const rates: TelegramRates = { ...TELEGRAM_RATES, ...options.rates };
  if (!options.shared) return { transformer: apiThrottler(rates), close: async () => {} };
  const logger = (options.logger ?? silentLogger()).child({ component: 'telegram-rates' });
  const ready = sharedScheduler(rates, options.shared, logger);
  // A failed start (a bad URL) is told at the first send, not left as an unhandled rejection.
  ready.catch((error: unknown) => logger.error({ err: error }, 'telegram: the shared rate limits could not start'));
  const transformer: Transformer = async (prev, method, payload, signal) => {
    if (!payload || !('chat_id' in payload)) return prev(method, payload, signal);
    const chatId = String((payload as { chat_id: unknown }).chat_id);
    const { schedule } = await ready;
    return schedule(chatId, Number(chatId) < 0, () => prev(method, payload, signal));
  };
  return {
    transformer,
    close: async () => {
      const started = await ready.catch(() => undefined);
      await started?.close();
    },
  };
}

/**
 * The Bottleneck id of a shared limit; a Group's limiter for one chat is `<id>-<chat id>`.
 * All instances of one bot meet under it, whatever their token's secret.
 */
export function sharedLimiterId(shared: Pick<SharedRatesOptions, 'botId' | 'prefix'>, limit: 'global' | 'group' | 'out'): string {
  return `${shared.prefix ?? 'hermes:'}telegram:${shared.botId}:rate:${limit}`;
}

async function sharedScheduler(rates: TelegramRates, shared: SharedRatesOptions, logger: Logger): Promise<{ schedule: Scheduler; close(): Promise<void> }> {
  const connection = await shared.connection;
  const name = (limit: 'global' | 'group' | 'out') => sharedLimiterId(shared, limit);
  const botWide = new Bottleneck({ ...rates.global, id: name('global'), connection, timeout: SHARED_IDLE_MS });
  const spacing = (limit: TelegramRateLimit) => ({ ...limit, maxConcurrent: null });
  const sharedGroup = new Bottleneck.Group({ ...spacing(rates.group), id: name('group'), connection, timeout: SHARED_IDLE_MS });
  const sharedOut = new Bottleneck.Group({ ...spacing(rates.out), id: name('out'), connection, timeout: SHARED_IDLE_MS });
  const localGroup = new Bottleneck.Group({ maxConcurrent: rates.group.maxConcurrent ?? null });
  const localOut = new Bottleneck.Group({ maxConcurrent: rates.out.maxConcurrent ?? null });
  for (const limiter of [botWide, sharedGroup, sharedOut, localGroup, localOut]) {
    limiter.on('error', (error: unknown) => logger.warn({ err: error }, 'telegram: rate limiter error'));
  }
  // Each key's limiter is looked up at every call: a Group drops idle ones.
  const schedule: Scheduler = (chatKey, isGroup, call) =>
    (isGroup ? localGroup : localOut)
      .key(chatKey)
      .schedule(() => (isGroup ? sharedGroup : sharedOut).key(chatKey).schedule(() => botWide.schedule(call)));
  return {
    schedule,
    close: async () => {
      // A limiter on a connection it was given leaves the connection open (a Group does nothing): each one is let go.
      const perChat = [sharedGroup, sharedOut].flatMap((group) => group.limiters().map(({ limiter }) => limiter));
      await Promise.all([botWide, ...perChat].map((limiter) => limiter.disconnect()));
    },
  };
}
