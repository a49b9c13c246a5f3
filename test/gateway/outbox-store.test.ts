import { afterEach, describe, expect, it } from 'vitest';
import { OutboxStore } from '../../src/gateway/outbox/store.js';
import type { StateLocation } from '../../src/sessions/index.js';
import { storeEngines, useEngine } from '../sessions/engines.js';

const stores: OutboxStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

const open = (location: StateLocation) => {
  const store = OutboxStore.open(location);
  stores.push(store);
  return store;
};

const reply = { kind: 'turn' as const, platform: 'telegram', threadKey: 'telegram:1', target: '{"chat":1}', input: 'hello' };

describe.each(storeEngines('the outbox store tests'))('the outbox store on $name', ({ name }) => {
  const engine = useEngine(name);

  it('walks a part from open to delivered, keeping the text shown and the message id', async () => {
    const store = open(await engine.fresh());
    const turn = store.beginTurn(reply, 1000);
    const first = store.addPart(turn, 'Hel', 'open', 1000);
    const second = store.addPart(turn, 'second', 'final', 1000);
    expect(second).toBeGreaterThan(first);
    store.shown(first, 'm-1', 'Hello');
    store.shown(first, undefined, 'Hello there');
    expect(store.part(first)).toEqual({ seq: first, turnId: turn, text: 'Hello there', state: 'open', messageId: 'm-1', attempts: 0 });
    store.finalize(first, 'Hello there, all of it');
    store.attempted(second, false);
    store.attempted(second, true);
    store.delivered(first, 'm-1');
    expect(store.parts(turn)).toEqual([
      { seq: first, turnId: turn, text: 'Hello there, all of it', state: 'delivered', messageId: 'm-1', attempts: 0 },
      { seq: second, turnId: turn, text: 'second', state: 'failed', messageId: null, attempts: 2 },
    ]);
    store.finishTurn(turn, 'ok');
    expect(store.turn(turn)).toMatchObject({ id: turn, state: 'finished', status: 'ok', createdAt: 1000, threadKey: 'telegram:1' });
  });

  it('lists what a restart takes up, oldest first, and what /retry runs again', async () => {
    const store = open(await engine.fresh());
    const done = store.beginTurn(reply, 1000);
    store.delivered(store.addPart(done, 'sent', 'final', 1000), 'm-1');
    store.finishTurn(done, 'ok');
    const running = store.beginTurn(reply, 2000);
    const waiting = store.beginTurn({ ...reply, kind: 'reply' }, 3000);
    store.addPart(waiting, 'not yet sent', 'final', 3000);
    store.finishTurn(waiting, 'ok');
    expect(store.unfinished().map((turn) => turn.id)).toEqual([running, waiting]);
    // The latest turn of the thread, even within one millisecond: the later one.
    const cut = store.beginTurn(reply, 3000);
    store.setState(cut, 'cut_off');
    expect(store.retryable('telegram:1')?.id).toBe(cut);
    expect(store.latestTarget('telegram:1')).toEqual({ platform: 'telegram', target: '{"chat":1}' });
    const open2 = store.addPart(running, 'draft', 'open', 2000);
    store.drop(open2);
    expect(store.part(open2)).toBeUndefined();
  });

  it('prunes delivered turns after a week and keeps the ones still owed', async () => {
    const store = open(await engine.fresh());
    const old = store.beginTurn(reply, 0);
    store.delivered(store.addPart(old, 'sent', 'final', 0), 'm-1');
    store.finishTurn(old, 'ok');
    const owed = store.beginTurn(reply, 0);
    store.addPart(owed, 'owed', 'final', 0);
    store.finishTurn(owed, 'ok');
    const week = 7 * 24 * 3600 * 1000;
    expect(store.prune(Date.now() + week + 1000)).toBe(1);
    expect(store.turn(old)).toBeUndefined();
    expect(store.parts(old)).toEqual([]);
    expect(store.turn(owed)?.id).toBe(owed);
  });

  it('a transaction that throws leaves nothing of what it wrote', async () => {
    const store = open(await engine.fresh());
    let turn = '';
    expect(() =>
      store.transaction(() => {
        turn = store.beginTurn(reply);
        store.addPart(turn, 'never', 'final');
        throw new Error('the work failed');
      }),
    ).toThrow('the work failed');
    expect(store.turn(turn)).toBeUndefined();
    expect(store.unfinished()).toEqual([]);
  });

  it('two instances on one database see each other\'s parts', async () => {
    const location = await engine.fresh();
    const a = open(location);
    const b = open(location);
    const turn = a.beginTurn(reply);
    const seq = a.addPart(turn, 'from A', 'final');
    expect(b.unfinished().map((t) => t.id)).toEqual([turn]);
    b.delivered(seq, 'm-9');
    expect(a.part(seq)?.state).toBe('delivered');
  });
});
