import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { botIdOf, createTelegramAdapter, TelegramAdapter } from '../../adapters/telegram/adapter.js';
import { sharedLimiterId, type SharedRatesOptions, type TelegramRates } from '../../adapters/telegram/throttler.js';
import { loadConfig } from '../../src/config/index.js';
import { connectRedisCoordination, redisRateLimits, type Coordination } from '../../src/coordination/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { until } from './helpers.js';

const missing = redisSkipReason('the shared Telegram rate tests');

/*
 * Telegram's rates as budgets, so nothing here reads a clock: the fake refuses (429) every
 * message call past its budget, and the throttlers' reservoirs refill only when the test says
 * so (a refill ten minutes away never comes on its own). A "tick" raises the fake's budget and
 * the shared reservoir together, as Telegram's next second would.
 */
const NEVER_MS = 600_000;
const BOT_BUDGET = 10;
const botWide = (reservoir: number): Partial<TelegramRates> => ({
  global: { reservoir, reservoirRefreshAmount: reservoir, reservoirRefreshInterval: NEVER_MS },
});
const perGroup = (reservoir: number): Partial<TelegramRates> => ({
  group: { maxConcurrent: 1, reservoir, reservoirRefreshAmount: reservoir, reservoirRefreshInterval: NEVER_MS },
});

describe.runIf(!missing)('Telegram rates across instances of one bot (a real redis-server)', () => {
  let server: TestRedis;
  let api: FakeTelegramApi;
  let adapters: TelegramAdapter[] = [];
  let clients: Redis[] = [];
  let limiters: Bottleneck[] = [];
  /** Each adapter is one instance: its own rate store (its own connection), closed after the test. */
  let stores: Array<{ close(): Promise<void> }> = [];
  let coordinations: Coordination[] = [];

  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const adapter of adapters) await adapter.stop();
    for (const limiter of limiters) await limiter.disconnect();
    for (const client of clients) await client.quit();
    for (const store of stores) await store.close();
    for (const made of coordinations) await made.close();
    await api?.close();
    adapters = [];
    limiters = [];
    clients = [];
    stores = [];
    coordinations = [];
  });

  /** What the instances of one test share: the bot and the key prefix. */
  const sharedFor = (): Pick<SharedRatesOptions, 'botId' | 'prefix'> => ({ botId: botIdOf(api.token), prefix: `t${randomBytes(4).toString('hex')}:` });
  const adapter = (rates: Partial<TelegramRates>, shared?: Pick<SharedRatesOptions, 'botId' | 'prefix'>) => {
    let sharedRates: SharedRatesOptions | undefined;
    if (shared) {
      const store = redisRateLimits(server.url, shared.prefix ?? 'hermes:', silentLogger());
      stores.push(store);
      const connection = store.shared();
      if (!connection) throw new Error('a Redis rate store gives a connection');
      sharedRates = { ...shared, connection };
    }
    const made = new TelegramAdapter({ token: api.token, apiRoot: api.apiRoot, rates, ...(sharedRates ? { sharedRates } : {}) });
    adapters.push(made);
    return made;
  };
  /** Adds to a shared limit's reservoir from outside the instances, as another member of the cluster. */
  const refill = async (id: string, amount: number) => {
    const limiter = new Bottleneck({ id, datastore: 'ioredis', clientOptions: { host: server.host, port: server.port } });
    limiters.push(limiter);
    await limiter.incrementReservoir(amount);
  };
  const sendMany = (from: TelegramAdapter, chats: number[]) => chats.map((chatId) => from.send({ threadKey: `telegram:${chatId}`, chatId }, `hello ${chatId}`));

  it('two instances sharing the bot-wide rate in Redis send no more than it allows, and the rest once it refills', async () => {
    api = await new FakeTelegramApi({ botBudget: BOT_BUDGET }).start();
    const shared = sharedFor();
    const [a, b] = [adapter(botWide(BOT_BUDGET), shared), adapter(botWide(BOT_BUDGET), shared)];
    const sends = [...sendMany(a, [1, 2, 3, 4, 5, 6, 7, 8]), ...sendMany(b, [11, 12, 13, 14, 15, 16, 17, 18])];
    const settled = Promise.allSettled(sends);
    await until(() => api.budgetSpent === BOT_BUDGET, 'the first ten sends');
    expect(api.budgetRefusals).toBe(0);
    api.botBudget = BOT_BUDGET + 6;
    await refill(sharedLimiterId(shared, 'global'), 6);
    const results = await settled;
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(api.budgetSpent).toBe(16);
    expect(api.budgetRefusals).toBe(0);
  });

  it('two instances keeping the bot-wide rate each on their own send past it: Telegram refuses the excess', async () => {
    api = await new FakeTelegramApi({ botBudget: BOT_BUDGET }).start();
    const [a, b] = [adapter(botWide(BOT_BUDGET)), adapter(botWide(BOT_BUDGET))];
    const results = await Promise.allSettled([...sendMany(a, [1, 2, 3, 4, 5, 6, 7, 8]), ...sendMany(b, [11, 12, 13, 14, 15, 16, 17, 18])]);
    expect(api.budgetSpent).toBe(BOT_BUDGET);
    expect(api.budgetRefusals).toBe(6);
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(6);
  });

  it('a group chat written to from two instances keeps one rate: shared, the second send waits for the refill instead of being refused', async () => {
    api = await new FakeTelegramApi({ chatBudget: 1 }).start();
    const shared = sharedFor();
    const [a, b] = [adapter(perGroup(1), shared), adapter(perGroup(1), shared)];
    const settled = Promise.allSettled([...sendMany(a, [-42]), ...sendMany(b, [-42])]);
    await until(() => api.budgetSpent === 1, 'the first send to the group');
    expect(api.budgetRefusals).toBe(0);
    api.chatBudget = 2;
    await refill(`${sharedLimiterId(shared, 'group')}--42`, 1);
    const results = await settled;
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(api.budgetSpentBy.get('-42')).toBe(2);
    expect(api.budgetRefusals).toBe(0);
  });

  it('a group chat written to from two instances that keep their rates apart gets one send refused', async () => {
    api = await new FakeTelegramApi({ chatBudget: 1 }).start();
    const [a, b] = [adapter(perGroup(1)), adapter(perGroup(1))];
    const results = await Promise.allSettled([...sendMany(a, [-42]), ...sendMany(b, [-42])]);
    expect(results.filter((result) => result.status === 'rejected')).toHaveLength(1);
    expect(api.budgetRefusals).toBe(1);
  });

  it('with the Redis coordination the adapter keeps its rates in Redis under the bot id, never the token', async () => {
    api = await new FakeTelegramApi().start();
    const home = mkdtempSync(join(tmpdir(), 'hermes-rates-'));
    const config = loadConfig({
      home,
      loadEnv: false,
      env: {},
      overrides: { platforms: { telegram: { api_root: api.apiRoot } }, coordination: { backend: 'redis', redis_url: server.url } },
    }).config;
    rmSync(home, { recursive: true, force: true });
    const coordination = await connectRedisCoordination(config, {}, silentLogger());
    coordinations.push(coordination);
    const made = createTelegramAdapter({ config, env: { TELEGRAM_BOT_TOKEN: api.token }, coordination });
    expect(made).toBeDefined();
    adapters.push(made!);
    await made!.send({ threadKey: 'telegram:7', chatId: 7 }, 'hello');
    const redis = new Redis(server.url);
    clients.push(redis);
    const keys = await redis.keys('*');
    const secret = api.token.split(':')[1];
    expect(keys.filter((key) => key.includes(`hermes:telegram:${api.botId}:rate:global`)).length).toBeGreaterThan(0);
    expect(keys.filter((key) => key.includes(`hermes:telegram:${api.botId}:rate:out-7`)).length).toBeGreaterThan(0);
    expect(keys.filter((key) => key.includes(secret))).toEqual([]);
  });

  it('a send lost in flight on one instance does not hold the chat for the others (one at a time per chat is kept per instance)', async () => {
    api = await new FakeTelegramApi().start();
    const shared = sharedFor();
    let first = true;
    api.hold = (method) => method === 'sendMessage' && first && !(first = false);
    const [a, b] = [adapter({}, shared), adapter({}, shared)];
    void a.send({ threadKey: 'telegram:5', chatId: 5 }, 'lost').catch(() => {});
    await until(() => api.held === 1, 'the first send held');
    await b.send({ threadKey: 'telegram:5', chatId: 5 }, 'goes through');
    expect(api.sent.map((sent) => sent.text)).toEqual(['goes through']);
  });

  it('with the Redis coordination a token without a bot id is refused, naming the variable', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-rates-'));
    const config = loadConfig({ home, loadEnv: false, env: {}, overrides: { coordination: { backend: 'redis', redis_url: server.url } } }).config;
    rmSync(home, { recursive: true, force: true });
    const coordination = await connectRedisCoordination(config, {}, silentLogger());
    coordinations.push(coordination);
    expect(() => createTelegramAdapter({ config, env: { TELEGRAM_BOT_TOKEN: 'not-a-token' }, coordination })).toThrow(/TELEGRAM_BOT_TOKEN is not a bot token/);
  });
});
