import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { coordinationKeys } from '../../src/coordination/index.js';
import { KERNEL_MOVED_NOTE, KERNEL_MOVED_NOTICE } from '../../src/shared/notices.js';
import { release, requestFor, waitForPgid } from '../fakes/slack-e2e-model.js';
import { until } from './helpers.js';
import { ownerOf, postUpdate, textUpdate } from './gateway-processes.js';
import { instancesCanRun, useTelegramInstances } from './telegram-instances.js';

/*
 * Two live `hermes gateway` processes: a thread whose script ran in A's session kernel goes
 * quiet, and its next message reaches B, which takes the thread without that kernel's state.
 */
const runs = instancesCanRun('the kernel-moved test');

const ADA = 1001;
const BOB = 2002;

describe.runIf(runs)('a thread that moves away from the instance whose kernel held its state', () => {
  const fx = useTelegramInstances({ name: 'kernel-moved', keyVar: 'HERMES_KERNEL_MOVED_KEY', allowed: [ADA, BOB], count: 2 });
  const { instances } = fx;

  /** A gives the thread up once its work has settled (a message to B before that would be passed to A). */
  const released = async (chat: number) => {
    const raw = new Redis(fx.redis.url);
    try {
      await until(async () => (await raw.exists(coordinationKeys().lease(`telegram:${chat}`))) === 0, 'A to give the thread up', 30_000);
    } finally {
      raw.disconnect();
    }
  };
  const lastUser = (tag: string) => {
    const messages = requestFor(fx.model.requests, tag)?.body.messages ?? [];
    return String(messages.filter((m) => m.role === 'user').at(-1)?.content);
  };

  it('tells the person once, before the answer, and the model in that turn, that the kernel state is gone', async () => {
    const [a, b] = instances;
    const { api, home } = fx;
    const answers = () => api.sentTo(ADA).map((sent) => sent.text).filter((text) => !text.startsWith('⚙️'));
    // A script runs in A's session kernel and ends; the thread goes quiet (its lease is given up).
    expect(await postUpdate(a, textUpdate(ADA, 'compute something [WAIT:K1]'))).toBe(200);
    const pgid = await waitForPgid(home, 'K1');
    expect(ownerOf(pgid, instances)).toBe(a);
    release(home, 'K1');
    await api.waitFor(() => answers().some((text) => text.includes('K1-DONE')), 'the script’s answer');
    expect(answers()).not.toContain(KERNEL_MOVED_NOTICE);
    await released(ADA);

    // The next messages reach B: it takes the thread, and A's kernel is out of its reach.
    expect(await postUpdate(b, textUpdate(ADA, 'and now? [M2]'))).toBe(200);
    await api.waitFor(() => answers().some((text) => text.includes('[M2]')), 'the answer on B');
    expect(await postUpdate(b, textUpdate(ADA, 'still there? [M3]'))).toBe(200);
    await api.waitFor(() => answers().some((text) => text.includes('[M3]')), 'the next answer on B');

    expect(answers().filter((text) => text === KERNEL_MOVED_NOTICE)).toHaveLength(1);
    expect(answers().indexOf(KERNEL_MOVED_NOTICE)).toBeLessThan(answers().findIndex((text) => text.includes('[M2]')));
    expect(lastUser('[M2]')).toBe(`${KERNEL_MOVED_NOTE}\n\nand now? [M2]`);
    expect(lastUser('[M3]')).toBe('still there? [M3]');
  }, 120_000);

  it('says nothing after /new: the new session starts without the kernel state on purpose', async () => {
    const [a, b] = instances;
    const { api, home } = fx;
    const answers = () => api.sentTo(BOB).map((sent) => sent.text).filter((text) => !text.startsWith('⚙️'));
    expect(await postUpdate(a, textUpdate(BOB, 'compute something [WAIT:K2]'))).toBe(200);
    await waitForPgid(home, 'K2');
    release(home, 'K2');
    await api.waitFor(() => answers().some((text) => text.includes('K2-DONE')), 'the script’s answer');
    await released(BOB);
    expect(await postUpdate(a, textUpdate(BOB, '/new'))).toBe(200);
    await api.waitFor(() => answers().some((text) => text.startsWith('Started a new session')), 'the answer to /new');
    await released(BOB);
    expect(await postUpdate(b, textUpdate(BOB, 'hello again [N2]'))).toBe(200);
    await api.waitFor(() => answers().some((text) => text.includes('[N2]')), 'the answer on B');
    expect(answers()).not.toContain(KERNEL_MOVED_NOTICE);
    expect(lastUser('[N2]')).toBe('hello again [N2]');
  }, 120_000);
});
