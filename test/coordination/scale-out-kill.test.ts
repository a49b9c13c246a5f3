import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coordinationKeys } from '../../src/coordination/keys.js';
import { groupAlive } from '../../src/environments/index.js';
import { KERNEL_MOVED_NOTE, KERNEL_MOVED_NOTICE } from '../../src/shared/notices.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel, requestFor, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import {
  killGatewayProcess,
  ownerOf,
  postUpdate,
  processesMissing,
  startGatewayProcess,
  stopGatewayProcess,
  textUpdate,
  writeInstancesConfig,
  type GatewayProcess,
} from './gateway-processes.js';
import { until } from './helpers.js';

/*
 * Two `hermes gateway` processes (the built CLI; `npm test` builds first) on one Redis and one
 * HERMES_HOME. One is killed with SIGKILL mid-turn; the other answers what comes next.
 */
const missingRedis = redisSkipReason('the instance-killed end-to-end test');
const why = processesMissing();
if (why && process.env.CI !== 'true') console.warn(`the instance-killed end-to-end test cannot run here: ${why}`);
const runs = !missingRedis && (!why || process.env.CI === 'true');

const KEY_VAR = 'HERMES_SCALE_OUT_KILL_KEY';
const ADA = 1001;

describe.runIf(runs)('an instance killed mid-turn (two gateway processes on one Redis and one state.db)', () => {
  let redis: TestRedis;
  let api: FakeTelegramApi;
  let model: FakeOpenAI;
  let home: string;
  const instances: GatewayProcess[] = [];
  const orphans: number[] = [];

  const send = (to: GatewayProcess, text: string) => postUpdate(to, textUpdate(ADA, text));
  const answers = () => api.sentTo(ADA).map((sent) => sent.text).filter((text) => !text.startsWith('⚙️'));
  const startInstance = async (): Promise<GatewayProcess> => {
    const instance = await startGatewayProcess(home, { [KEY_VAR]: 'sk-fake', TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) });
    instances.push(instance);
    return instance;
  };

  beforeAll(async () => {
    redis = await startRedis();
    api = await new FakeTelegramApi().start();
    home = mkdtempSync(join(tmpdir(), 'hermes-scale-out-kill-'));
    model = await startFakeOpenAI({ fallback: e2eModel(home) });
    writeInstancesConfig(home, { modelUrl: model.url, keyVar: KEY_VAR, telegramApiRoot: api.apiRoot, redisUrl: redis.url }, { coordination: { lease_seconds: 1 } });
  }, 30_000);

  afterAll(async () => {
    for (const instance of instances) await stopGatewayProcess(instance);
    // The killed gateway's script outlived it: its group is this test's own descendant.
    for (const pgid of orphans) if (pgid > 1 && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    await model?.close();
    await api?.close();
    await redis?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 30_000);

  it('after SIGKILL of the instance running a turn, the next message, sent to the other, is answered there with the whole history', async () => {
    const a = await startInstance();
    const b = await startInstance();
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
