import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { coordinationKeys } from '../../src/coordination/keys.js';
import { groupAlive } from '../../src/environments/index.js';
import { KERNEL_MOVED_NOTE, KERNEL_MOVED_NOTICE } from '../../src/shared/notices.js';
import { requestFor, waitForPgid } from '../fakes/slack-e2e-model.js';
import { killGatewayProcess, ownerOf, postUpdate, textUpdate, type GatewayProcess } from './gateway-processes.js';
import { until } from './helpers.js';
import { instancesCanRun, useTelegramInstances } from './telegram-instances.js';

/*
 * Two `hermes gateway` processes (the built CLI; `npm test` builds first) on one Redis and one
 * HERMES_HOME. One is killed with SIGKILL mid-turn; the other answers what comes next.
 */
const runs = instancesCanRun('the instance-killed end-to-end test');

const ADA = 1001;

describe.runIf(runs)('an instance killed mid-turn (two gateway processes on one Redis and one state.db)', () => {
  const orphans: number[] = [];
  const fx = useTelegramInstances({ name: 'scale-out-kill', keyVar: 'HERMES_SCALE_OUT_KILL_KEY', allowed: [ADA], config: { coordination: { lease_seconds: 1 } } });

  const send = (to: GatewayProcess, text: string) => postUpdate(to, textUpdate(ADA, text));
  const answers = () => fx.api.sentTo(ADA).map((sent) => sent.text).filter((text) => !text.startsWith('⚙️'));

  afterAll(() => {
    // The killed gateway's script outlived it: its group is this test's own descendant.
    for (const pgid of orphans) if (pgid > 1 && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  });

  it('after SIGKILL of the instance running a turn, the next message, sent to the other, is answered there with the whole history', async () => {
    const { api, home, redis, model } = fx;
    const a = await fx.start();
    const b = await fx.start();
    expect(await send(a, 'remember the word PLUM [H1]')).toBe(200);
    await api.waitFor(() => answers().length === 1, 'the first answer');
    expect(await send(b, 'work on it [SLOW:K]')).toBe(200);
    const pgid = await waitForPgid(home, 'K');
    orphans.push(pgid);
    // B hands the turn to A when A still holds the thread from [H1]: kill whichever runs the script.
    const running = ownerOf(pgid, [a, b]);
    expect(running, 'the script runs under one of the two gateways').toBeDefined();
    // The instance records its kernel as the cell starts, without holding the cell up: a crash
    // within those few milliseconds leaves nothing to tell. Wait for the record, as a crash mid-turn would find it.
    const raw = new Redis(redis.url);
    await until(async () => (await raw.exists(coordinationKeys().kernel(`telegram:${ADA}`))) === 1, 'the kernel recorded in Redis', 30_000);
    raw.disconnect();
    const other = running === a ? b : a;
    await killGatewayProcess(running!);
    // Sent at once, while the dead one's lease and heartbeat still stand: the other waits it out and answers.
    expect(await send(other, 'what was the word? [AFTER]')).toBe(200);
    await api.waitFor(() => answers().some((text) => text.includes('[AFTER]')), 'the answer after the kill');
    const users = requestFor(model.requests, '[AFTER]')?.body.messages.filter((m) => m.role === 'user').map((m) => String(m.content));
    // The killed instance's kernel ran the script: the model is told its state is gone, in this turn's note.
    expect(users).toEqual(['remember the word PLUM [H1]', 'work on it [SLOW:K]', `${KERNEL_MOVED_NOTE}\n\nwhat was the word? [AFTER]`]);
    expect(answers().filter((text) => text.includes('[AFTER]'))).toHaveLength(1);
    // And so is the person: once, before the answer.
    expect(answers().filter((text) => text === KERNEL_MOVED_NOTICE)).toHaveLength(1);
    expect(answers().indexOf(KERNEL_MOVED_NOTICE)).toBeLessThan(answers().findIndex((text) => text.includes('[AFTER]')));
  }, 90_000);
});
