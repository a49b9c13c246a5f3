import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coordinationKeys, RedisCoordinator } from '../../src/coordination/index.js';
import { OutboxStore } from '../../src/gateway/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel, release, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { postUpdate, processesMissing, startGatewayProcess, stopGatewayProcess, textUpdate, type GatewayProcess, writeInstancesConfig } from './gateway-processes.js';

/*
 * An instance that starts resumes the replies state.db holds as unsent only in threads it can
 * take: those of a live instance are left to it, those of a dead one are sent once.
 */
const missingRedis = redisSkipReason('the delivery-across-instances test');
const why = processesMissing();
if (why && process.env.CI !== 'true') console.warn(`the delivery-across-instances test cannot run here: ${why}`);
const runs = !missingRedis && (!why || process.env.CI === 'true');

const KEY_VAR = 'HERMES_DELIVERY_ACROSS_KEY';
const LIVE = 1001;
const DEAD = 2002;
const TURN = 3003;

describe.runIf(runs)('unsent replies when an instance starts beside others (one Redis, one state.db)', () => {
  let redis: TestRedis;
  let api: FakeTelegramApi;
  let model: FakeOpenAI;
  let home: string;
  const instances: GatewayProcess[] = [];
  let liveOwner: RedisCoordinator | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    api = await new FakeTelegramApi().start();
    home = mkdtempSync(join(tmpdir(), 'hermes-delivery-across-'));
    model = await startFakeOpenAI({ fallback: e2eModel(home) });
    // Long enough that a live instance slowed by a loaded machine keeps its leases and heartbeat.
    writeInstancesConfig(home, { modelUrl: model.url, keyVar: KEY_VAR, telegramApiRoot: api.apiRoot, redisUrl: redis.url }, { coordination: { lease_seconds: 5 } });
  }, 30_000);

  afterAll(async () => {
    release(home, 'Q');
    for (const instance of instances) await stopGatewayProcess(instance);
    await liveOwner?.close();
    await model?.close();
    await api?.close();
    await redis?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 60_000);

  it('leaves the unsent replies and the running turn of threads live instances hold, and sends those of a dead instance once', async () => {
    const env = { [KEY_VAR]: 'sk-fake', TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: [LIVE, DEAD, TURN].join(',') };
    const a = await startGatewayProcess(home, env);
    instances.push(a);
    // A is mid-turn in one thread: its outbox turn is running, as a crash would leave it.
    expect(await postUpdate(a, textUpdate(TURN, 'take your time [WAIT:Q]'))).toBe(200);
    await waitForPgid(home, 'Q');

    // Two replies waiting in state.db: one in a thread a live instance holds, one in a thread of an instance that died.
    const outbox = OutboxStore.open(join(home, 'state.db'));
    for (const [chat, text] of [
      [LIVE, 'LIVE-PART'],
      [DEAD, 'DEAD-PART'],
    ] as const) {
      const threadKey = `telegram:${chat}`;
      const turn = outbox.beginTurn({ kind: 'reply', platform: 'telegram', threadKey, target: JSON.stringify({ threadKey, chatId: chat }), input: '' });
      outbox.addPart(turn, text, 'final');
    }
    outbox.close();
    liveOwner = await RedisCoordinator.connect({ url: redis.url, instanceId: 'live-owner', leaseTtlMs: 10_000 }, { message: async () => {}, interrupt: () => {} });
    expect(await liveOwner.hold(`telegram:${LIVE}`, () => {})).toBeDefined();
    const raw = new Redis(redis.url);
    // The dead instance's lease still stands for a moment; it has no heartbeat.
    await raw.set(coordinationKeys().lease(`telegram:${DEAD}`), 'dead-owner', 'PX', 1500);
    raw.disconnect();

    const b = await startGatewayProcess(home, env);
    instances.push(b);
    const texts = (chat: number) => api.sentTo(chat).map((sent) => sent.text);
    // B waits the dead lease out and sends its reply; by then it had decided about the others long ago.
    await api.waitFor(() => texts(DEAD).includes('DEAD-PART'), "the dead instance's reply");
    release(home, 'Q');
    await api.waitFor(() => texts(TURN).some((text) => text.includes('Q-DONE')), "A's answer of its running turn");
    await stopGatewayProcess(b);
    await stopGatewayProcess(a);

    expect(texts(DEAD).filter((text) => text === 'DEAD-PART')).toHaveLength(1);
    expect(texts(LIVE), 'the reply in the thread a live instance holds').toEqual([]);
    // A's turn was not taken for one a restart cut off: no notice, one answer.
    expect(texts(TURN).filter((text) => text.includes('restarted')), 'the cut-off notice in the thread of the running turn').toEqual([]);
    expect(texts(TURN).filter((text) => text.includes('Q-DONE'))).toHaveLength(1);
  }, 120_000);
});
