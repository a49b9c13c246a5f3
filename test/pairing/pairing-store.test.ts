import { afterEach, describe, expect, it } from 'vitest';
import { PAIRING_ALPHABET, PairingStore } from '../../src/pairing/index.js';
import { storeEngines, useEngine } from '../sessions/engines.js';

const HOUR = 60 * 60_000;

describe.each(storeEngines('the pairing store tests'))('PairingStore on $name', ({ name }) => {
  const engine = useEngine(name);
  const opened: PairingStore[] = [];
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
  });
  let time = 1_700_000_000_000;
  const now = () => time;
  const open = async (location?: Awaited<ReturnType<typeof engine.fresh>>) => {
    const store = PairingStore.open(location ?? (await engine.fresh()), { now });
    opened.push(store);
    return store;
  };

  it('gives one code per person, at most three waiting, each valid one hour', async () => {
    const store = await open();
    const first = store.request('telegram', { id: '5', name: 'Eve' });
    expect(first.kind).toBe('issued');
    if (first.kind !== 'issued') return;
    expect(first.code).toHaveLength(8);
    expect([...first.code].every((char) => PAIRING_ALPHABET.includes(char))).toBe(true);
    expect(store.request('telegram', { id: '5' })).toEqual({ kind: 'waiting', code: first.code, expiresAt: time + HOUR });
    expect(store.request('telegram', { id: '6' }).kind).toBe('issued');
    expect(store.request('telegram', { id: '7' }).kind).toBe('issued');
    expect(store.request('telegram', { id: '8' })).toEqual({ kind: 'full' });
    // Another platform has places of its own.
    expect(store.request('slack', { id: '8' }).kind).toBe('issued');
    time += HOUR;
    expect(store.pending('telegram')).toEqual([]);
    const renewed = store.request('telegram', { id: '5' });
    expect(renewed.kind).toBe('issued');
  });

  it('approves by code (case and spaces aside) for every connection; revoke ends it at once', async () => {
    const location = await engine.fresh();
    const gateway = await open(location);
    const cli = await open(location);
    const issued = gateway.request('telegram', { id: '5', name: 'Eve' });
    if (issued.kind !== 'issued') throw new Error('no code');
    const typed = `${issued.code.slice(0, 4).toLowerCase()} ${issued.code.slice(4)}`;
    expect(cli.approve('telegram', typed, 'cli')).toEqual({ kind: 'approved', userId: '5', userName: 'Eve' });
    expect(gateway.isPaired('telegram', '5')).toBe(true);
    expect(gateway.isPaired('slack', '5')).toBe(false);
    expect(gateway.pending()).toEqual([]);
    expect(cli.paired('telegram')).toEqual([{ platform: 'telegram', userId: '5', userName: 'Eve', approvedAt: time, approvedBy: 'cli' }]);
    expect(cli.approve('telegram', issued.code, 'cli')).toEqual({ kind: 'refused' });
    expect(cli.revoke('telegram', '5')).toBe(true);
    expect(gateway.isPaired('telegram', '5')).toBe(false);
    expect(cli.revoke('telegram', '5')).toBe(false);
  });

  it('five wrong codes lock approvals on the platform for the window, right codes too', async () => {
    const store = await open();
    const issued = store.request('telegram', { id: '5' });
    if (issued.kind !== 'issued') throw new Error('no code');
    for (let i = 0; i < 5; i++) expect(store.approve('telegram', `WRONG${i}XX`, 'admin')).toEqual({ kind: 'refused' });
    expect(store.approve('telegram', issued.code, 'admin')).toEqual({ kind: 'locked', retryAt: time + 15 * 60_000 });
    // Other platforms are not locked.
    const other = store.request('slack', { id: '9' });
    if (other.kind !== 'issued') throw new Error('no code');
    expect(store.approve('slack', other.code, 'admin').kind).toBe('approved');
    time += 15 * 60_000;
    expect(store.approve('telegram', issued.code, 'admin').kind).toBe('approved');
  });
});
