import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redisSkipReason } from '../helpers/redis.js';
import { useRouterInstances } from './router-instances.js';

const missing = redisSkipReason('the thread-take tests');

describe.runIf(!missing)('taking a thread for the replies an earlier run left (real redis-server)', () => {
  const routers = useRouterInstances();
  const instance = async (instanceId: string, prefix: string) => (await routers.instance(instanceId, prefix)).router;

  it('is refused while another live instance sends replies in the thread outside its lease, and granted once it is done', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    const sent = await a.sending('telegram:1');
    expect(await b.take('telegram:1')).toBe(false);
    sent();
    // The unmark is on its way: wait for it the way a later start would find it.
    for (let i = 0; i < 100 && !(await b.take('telegram:1')); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await b.take('telegram:1')).toBe(true);
    b.done('telegram:1');
  });

  it('is refused while a live instance holds the thread, and granted to the holder itself', async () => {
    const prefix = `t${randomBytes(3).toString('hex')}:`;
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    expect(await a.take('telegram:2')).toBe(true);
    expect(await b.take('telegram:2')).toBe(false);
    expect(await a.take('telegram:2')).toBe(true);
  });
});
