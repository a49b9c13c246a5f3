import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../../src/shared/index.js';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
};

describe('KeyedQueue', () => {
  it('runs the tasks of one key one after another, in order, and other keys beside them', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const first = gate();
    const a1 = queue.run('a', async () => {
      log.push('a1 start');
      await first.opened;
      log.push('a1 end');
    });
    const a2 = queue.run('a', async () => void log.push('a2'));
    const b1 = queue.run('b', async () => void log.push('b1'));
    await b1;
    expect(log).toEqual(['a1 start', 'b1']);
    first.open();
    await Promise.all([a1, a2]);
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
  });

  it('a failed task rejects its own caller only; the next one of the key still runs; idle keys are forgotten', async () => {
    const queue = new KeyedQueue();
    const failed = queue.run('k', async () => {
      throw new Error('boom');
    });
    const next = queue.run('k', async () => 'ran');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
    await queue.settled();
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).toBe(0);
  });
});
