import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CronStore } from '../../src/cron/index.js';
import { groupAlive } from '../../src/environments/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel, waitForGroupGone, waitForPgid } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { ownerOf, postUpdate, processesMissing, startGatewayProcess, stopGatewayProcess, textUpdate, type GatewayProcess, writeInstancesConfig } from './gateway-processes.js';

/*
 * Two `hermes gateway` processes with cron on one Redis and one state.db. Two jobs of one thread
 * run (missed at start, cron.missed_runs: run_once) on the first instance; /cron stop and /stop
 * sent to the other stop them there.
 */
const missingRedis = redisSkipReason('the job-stop-across-instances test');
const why = processesMissing();
if (why && process.env.CI !== 'true') console.warn(`the job-stop-across-instances test cannot run here: ${why}`);
const runs = !missingRedis && (!why || process.env.CI === 'true');

const KEY_VAR = 'HERMES_JOB_STOP_ACROSS_KEY';
const ADA = 1001;

describe.runIf(runs)('stopping a scheduled job from another instance than the one running it', () => {
  let redis: TestRedis;
  let api: FakeTelegramApi;
  let model: FakeOpenAI;
  let home: string;
  const instances: GatewayProcess[] = [];
  const groups: number[] = [];
  const ids: string[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    api = await new FakeTelegramApi().start();
    home = mkdtempSync(join(tmpdir(), 'hermes-job-stop-across-'));
    model = await startFakeOpenAI({ fallback: e2eModel(home) });
    writeInstancesConfig(home, { modelUrl: model.url, keyVar: KEY_VAR, telegramApiRoot: api.apiRoot, redisUrl: redis.url }, { cron: { enabled: true, missed_runs: 'run_once' } });
    const store = CronStore.open(join(home, 'state.db'));
    for (const name of ['J1', 'J2']) {
      const pgid = JSON.stringify(join(home, `${name}.pgid`));
      const added = store.add(
        {
          threadKey: `telegram:${ADA}`,
          platform: 'telegram',
          target: JSON.stringify({ threadKey: `telegram:${ADA}`, chatId: ADA }),
          audience: 'others',
          schedule: 'every 1h',
          kind: 'script',
          payload: `import os, time\nwith open(${pgid} + '.tmp', 'w') as f:\n    f.write(str(os.getpgrp()))\nos.replace(${pgid} + '.tmp', ${pgid})\ntime.sleep(120)\n`,
          deliver: 'thread',
          nextRunAt: Date.now() - 60_000,
        },
        { perThread: 10, total: 10 },
      );
      if (typeof added === 'string') throw new Error(`could not add a job: ${added}`);
      ids.push(added.id);
    }
    store.close();
    const env = { [KEY_VAR]: 'sk-fake', TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
    for (let i = 0; i < 2; i++) instances.push(await startGatewayProcess(home, env));
  }, 90_000);

  afterAll(async () => {
    for (const instance of instances) await stopGatewayProcess(instance);
    // Were a stop to fail, the script would outlive the test: its group is this test's own descendant.
    for (const pgid of groups) if (pgid > 1 && groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    await model?.close();
    await api?.close();
    await redis?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 60_000);

  /** The job's script group, and the instance that does not run it. */
  const running = async (name: string) => {
    const pgid = await waitForPgid(home, name);
    groups.push(pgid);
    const runner = ownerOf(pgid, instances);
    expect(runner, 'the job runs under one of the instances').toBeDefined();
    return { pgid, other: instances.find((instance) => instance !== runner)! };
  };
  const texts = () => api.sentTo(ADA).map((sent) => sent.text);

  it('/cron stop <id> sent to the other instance kills the job’s script where it runs', async () => {
    const { pgid, other } = await running('J1');
    expect(groupAlive(pgid)).toBe(true);
    // The instance that started after the run began did not take it for one a stopped gateway left open.
    const store = CronStore.open(join(home, 'state.db'));
    try {
      expect(store.runs(ids[0])[0]?.status).toBe('running');
    } finally {
      store.close();
    }
    expect(await postUpdate(other, textUpdate(ADA, `/cron stop ${ids[0]}`))).toBe(200);
    await api.waitFor(() => texts().includes(`Stopped the running ${ids[0]}.`), 'the answer to /cron stop');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
  }, 90_000);

  it('/stop sent to the other instance stops the thread’s job running elsewhere', async () => {
    const { pgid, other } = await running('J2');
    expect(await postUpdate(other, textUpdate(ADA, '/stop'))).toBe(200);
    await api.waitFor(() => texts().includes('Stopped 1 running scheduled job.'), 'the answer to /stop');
    await waitForGroupGone(pgid);
    expect(groupAlive(pgid)).toBe(false);
    // A stopped run posts nothing.
    expect(texts().filter((text) => text.startsWith('⏰'))).toEqual([]);
  }, 90_000);
});
