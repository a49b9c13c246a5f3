import { afterEach, describe, expect, it } from 'vitest';
import { OutboxStore } from '../../src/gateway/outbox/store.js';
import { ThreadDelivery } from '../../src/gateway/stream/delivery.js';
import type { StreamedMessage } from '../../src/gateway/types.js';
import { silentLogger } from '../../src/shared/logger.js';
import { useEngine } from '../sessions/engines.js';

class Transient extends Error {
  constructor(readonly afterMs?: number) {
    super('try again');
  }
}

/** A message whose `finish` fails as scripted, then confirms. */
function scripted(failures: Error[], seen: Array<{ text: string; at: number }>): StreamedMessage {
  return {
    minIntervalMs: 0,
    messageId: undefined,
    update: async () => {},
    finish: async (text) => {
      seen.push({ text, at: Date.now() });
      const failure = failures.shift();
      if (failure) throw failure;
      return { messageId: `m-${seen.length}` };
    },
  };
}

describe('ThreadDelivery: a part’s final text, retried as the adapter says', () => {
  const engine = useEngine('sqlite');
  const stores: OutboxStore[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
  });
  const setUp = async (controller = new AbortController()) => {
    const outbox = OutboxStore.open(await engine.fresh());
    stores.push(outbox);
    const turn = outbox.beginTurn({ kind: 'turn', platform: 'telegram', threadKey: 'telegram:1', target: '{}', input: 'hi' });
    const delivery = new ThreadDelivery({
      outbox,
      logger: silentLogger(),
      signal: controller.signal,
      verdict: (error) => (error instanceof Transient ? { retry: true, ...(error.afterMs !== undefined ? { afterMs: error.afterMs } : {}) } : { retry: false }),
    });
    return { outbox, turn, delivery, controller };
  };

  it('waits what the adapter’s verdict asks, counts each failed attempt and marks the part delivered', async () => {
    const { outbox, turn, delivery } = await setUp();
    const seq = outbox.addPart(turn, 'x', 'final');
    const seen: Array<{ text: string; at: number }> = [];
    await delivery.deliver(seq, 'final text', scripted([new Transient(150), new Transient(0)], seen));
    expect(seen.map((s) => s.text)).toEqual(['final text', 'final text', 'final text']);
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(140);
    expect(outbox.part(seq)).toMatchObject({ state: 'delivered', messageId: 'm-3', attempts: 2 });
    // The queue forgets the thread once the settled part is off it (a turn of the event loop).
    await new Promise((resolve) => setImmediate(resolve));
    expect(delivery.busy).toBe(false);
  });

  it('gives a part up at once on a failure the verdict calls final, and the next part still goes out, in order', async () => {
    const { outbox, turn, delivery } = await setUp();
    const first = outbox.addPart(turn, 'a', 'final');
    const second = outbox.addPart(turn, 'b', 'final');
    const seen: Array<{ text: string; at: number }> = [];
    await Promise.all([
      delivery.deliver(first, 'a', scripted([new Error('refused')], seen)),
      delivery.deliver(second, 'b', scripted([], seen)),
    ]);
    expect(seen.map((s) => s.text)).toEqual(['a', 'b']);
    expect(outbox.part(first)).toMatchObject({ state: 'failed', attempts: 1 });
    expect(outbox.part(second)).toMatchObject({ state: 'delivered' });
  });

  it('leaves a part for after the restart when shutdown ends its wait: not failed, not delivered', async () => {
    const { outbox, turn, delivery, controller } = await setUp();
    const seq = outbox.addPart(turn, 'x', 'final');
    const seen: Array<{ text: string; at: number }> = [];
    const delivering = delivery.deliver(seq, 'x', scripted([new Transient(60_000)], seen));
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort('shutdown');
    await delivering;
    expect(seen).toHaveLength(1);
    expect(outbox.part(seq)).toMatchObject({ state: 'final', attempts: 1 });
  });
});
