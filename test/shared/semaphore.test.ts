import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/shared/index.js';

describe('Semaphore', () => {
  it('lets at most `limit` in and the others in the order they asked', async () => {
    const semaphore = new Semaphore(2);
    const order: number[] = [];
    const first = await semaphore.acquire();
    const second = await semaphore.acquire();
    const waiting = [3, 4, 5].map((n) => semaphore.acquire().then((release) => (order.push(n), release)));
    expect(semaphore.waiting).toBe(3);
    first();
    const third = await waiting[0];
    second();
    third();
    const rest = await Promise.all(waiting.slice(1));
    expect(order).toEqual([3, 4, 5]);
    expect(semaphore.inUse).toBe(2);
    rest.forEach((release) => release());
    expect(semaphore.inUse).toBe(0);
  });

  it('drops a waiter whose signal aborts, with the reason', async () => {
    const semaphore = new Semaphore(1);
    const held = await semaphore.acquire();
    const controller = new AbortController();
    const aborted = semaphore.acquire(controller.signal);
    const next = semaphore.acquire();
    controller.abort('stopped');
    await expect(aborted).rejects.toBe('stopped');
    held();
    const release = await next;
    expect(semaphore.inUse).toBe(1);
    release();
    release(); // a second call changes nothing
    expect(semaphore.inUse).toBe(0);
  });
});
