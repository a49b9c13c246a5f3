import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coordinationKeys, RedisCoordinator, ThreadRouter } from '../../src/coordination/index.js';
import type { InboundMessage } from '../../src/gateway/index.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { adaMessage, until } from './helpers.js';

const missing = redisSkipReason('the passed-message tests');

const message = (threadKey: string, text: string): InboundMessage => {
  // The platform's own part of the target travels too (its ThreadRef reads it at dispatch).
  const replyTo = { threadKey, chatId: 1 };
  return adaMessage(threadKey, text, replyTo);
};

/* A raw client plays an instance (or a stranger) writing to another instance's inbox. */
describe.runIf(!missing)('what reaches an instance’s inbox from Redis (real redis-server)', () => {
  let server: TestRedis;
  let raw: Redis;
  const open: Array<{ router: ThreadRouter; coordinator: RedisCoordinator }> = [];

  beforeAll(async () => {
    server = await startRedis();
    raw = new Redis(server.url);
  }, 30_000);
  afterAll(async () => {
    for (const { router, coordinator } of open) {
      await router.close();
      await coordinator.close();
    }
    raw?.disconnect();
    await server?.stop();
  });

  it('refuses a malformed passed message with a logged error, reads the next ones, and dispatches a real one as sent', async () => {
    const prefix = `p${randomBytes(3).toString('hex')}:`;
    const logs: Array<{ level: number; msg: string; problem?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
    const dispatched: Array<{ message: InboundMessage; attachments: unknown }> = [];
    const late: { router?: ThreadRouter } = {};
    const coordinator = await RedisCoordinator.connect(
      { url: server.url, instanceId: 'b', leaseTtlMs: 30_000, prefix },
      { message: async (_threadKey, payload) => late.router?.receive(payload), interrupt: () => {} },
    );
    const router = new ThreadRouter(coordinator, logger);
    late.router = router;
    router.attach({
      dispatch: async () => {},
      dispatchPassed: async (passed, attachments) => void dispatched.push({ message: passed, attachments }),
      threadState: () => ({ running: false, queued: 0 }),
    });
    open.push({ router, coordinator });

    const inbox = coordinationKeys(prefix).inbox('b');
    const good = message('telegram:1', 'hello');
    const envelope = (payload: unknown) => JSON.stringify({ kind: 'message', threadKey: 'telegram:1', from: 'x', payload });
    const malformed: unknown[] = [
      null,
      'a string',
      [],
      { ...good, replyTo: undefined },
      { ...good, replyTo: 'telegram:1' },
      { ...good, chat: { id: '1', type: 'room' } },
      { ...good, text: 7 },
      { ...good, user: null },
      { ...good, threadKey: '' },
    ];
    for (const text of ['not json', JSON.stringify({ kind: 'exec', threadKey: 't', from: 'x' }), ...malformed.map(envelope)]) {
      await raw.xadd(inbox, '*', 'envelope', text);
    }
    await raw.xadd(inbox, '*', 'envelope', envelope({ ...good, attachments: [{ name: 'a.txt' }] }));

    await until(() => dispatched.length === 1, 'the real message to be dispatched');
    expect(dispatched[0].message).toEqual(good);
    expect(dispatched[0].attachments).toEqual([{ name: 'a.txt' }]);
    const refused = logs.filter((line) => line.msg === 'a passed message that is not a chat message was refused');
    expect(refused).toHaveLength(malformed.length);
    expect(refused.every((line) => line.level === 50 && typeof line.problem === 'string' && line.problem.length > 0)).toBe(true);
    // Every entry was handled and deleted, the malformed ones too.
    await until(async () => (await raw.xlen(inbox)) === 0, 'the inbox to be emptied');
  });
});
