import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { coordinationKeys, RedisCoordinator } from '../../src/coordination/index.js';
import { OutboxStore } from '../../src/gateway/index.js';
import { release, waitForPgid } from '../fakes/slack-e2e-model.js';
import { postUpdate, stopGatewayProcess, textUpdate } from './gateway-processes.js';
import { instancesCanRun, useTelegramInstances } from './telegram-instances.js';

/*
 * An instance that starts resumes the replies state.db holds as unsent only in threads it can
 * take: those of a live instance are left to it, those of a dead one are sent once.
 */
const runs = instancesCanRun('the delivery-across-instances test');

const LIVE = 1001;
const DEAD = 2002;
const TURN = 3003;

describe.runIf(runs)('unsent replies when an instance starts beside others (one Redis, one state.db)', () => {
  // Long enough that a live instance slowed by a loaded machine keeps its leases and heartbeat.
  const fx = useTelegramInstances({ name: 'delivery-across', keyVar: 'HERMES_DELIVERY_ACROSS_KEY', allowed: [LIVE, DEAD, TURN], config: { coordination: { lease_seconds: 5 } } });
  let liveOwner: RedisCoordinator | undefined;

  afterAll(async () => {
    release(fx.home, 'Q');
    await liveOwner?.close();
  });

  it('leaves the unsent replies and the running turn of threads live instances hold, and sends those of a dead instance once', async () => {
    const { api, home, redis } = fx;
    const a = await fx.start();
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

    const b = await fx.start();
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
