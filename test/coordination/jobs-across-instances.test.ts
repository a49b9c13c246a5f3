import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CronStore } from '../../src/cron/index.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { killGatewayProcess, logLines, processesMissing, startGatewayProcess, stopGatewayProcess, type GatewayProcess, writeInstancesConfig } from './gateway-processes.js';

/*
 * Three `hermes gateway` processes with cron enabled on one Redis and one state.db, and one job
 * every second: each scheduled time is run by one of them, and when one is killed the others go on.
 */
const missingRedis = redisSkipReason('the jobs-across-instances test');
const why = processesMissing();
if (why && process.env.CI !== 'true') console.warn(`the jobs-across-instances test cannot run here: ${why}`);
const runs = !missingRedis && (!why || process.env.CI === 'true');

const KEY_VAR = 'HERMES_JOBS_ACROSS_KEY';
const ADA = 1001;

describe.runIf(runs)('a job every second on three gateway instances sharing one Redis and one state.db', () => {
  let redis: TestRedis;
  let api: FakeTelegramApi;
  let model: FakeOpenAI;
  let home: string;
  const instances: GatewayProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    api = await new FakeTelegramApi().start();
    home = mkdtempSync(join(tmpdir(), 'hermes-jobs-across-'));
    model = await startFakeOpenAI({ fallback: e2eModel(home) });
    writeInstancesConfig(home, { modelUrl: model.url, keyVar: KEY_VAR, telegramApiRoot: api.apiRoot, redisUrl: redis.url }, { cron: { enabled: true }, coordination: { lease_seconds: 1 } });
  }, 30_000);

  afterAll(async () => {
    for (const instance of instances) await stopGatewayProcess(instance);
    await model?.close();
    await api?.close();
    await redis?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }, 60_000);

  it('runs each scheduled time on exactly one instance, and the survivors keep the schedule after one is killed', async () => {
    // Each run appends a line, so the runs are counted apart from the log and the chat.
    const runsFile = join(home, 'runs.txt');
    const store = CronStore.open(join(home, 'state.db'));
    const added = store.add(
      {
        threadKey: `telegram:${ADA}`,
        platform: 'telegram',
        target: JSON.stringify({ threadKey: `telegram:${ADA}`, chatId: ADA }),
        audience: 'others',
        schedule: 'every 1s',
        kind: 'script',
        payload: `with open(${JSON.stringify(runsFile)}, 'a') as f:\n    f.write('ran\\n')\nprint('tick')\n`,
        deliver: 'thread',
        nextRunAt: Date.now() + 1000,
      },
      { perThread: 10, total: 10 },
    );
    store.close();
    if (typeof added === 'string') throw new Error(`could not add the job: ${added}`);
    const env = { [KEY_VAR]: 'sk-fake', TELEGRAM_BOT_TOKEN: api.token, TELEGRAM_ALLOWED_USERS: String(ADA) };
    for (let i = 0; i < 3; i++) instances.push(await startGatewayProcess(home, env));
    const [a, b, c] = instances;
    const posts = () => api.sentTo(ADA).filter((sent) => sent.text.startsWith(`⏰ ${added.id} (every 1s): `));

    await api.waitFor(() => posts().length >= 4, 'four runs delivered by three instances');
    await killGatewayProcess(b);
    const killedAt = Date.now();
    const before = posts().length;
    await api.waitFor(() => posts().length >= before + 4, 'four more runs after one instance was killed');
    await stopGatewayProcess(a);
    await stopGatewayProcess(c);

    const started = logLines(home).filter((line) => line.msg === 'cron: job started' && line.job === added.id);
    const times = started.map((line) => Number(line.scheduledAt));
    // No scheduled time ran twice, and scheduled times a period apart: no second run slipped in between.
    expect(new Set(times).size).toBe(times.length);
    const sorted = [...times].sort((x, y) => x - y);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i] - sorted[i - 1]).toBeGreaterThanOrEqual(1000);
    // What ran is what was posted: each delivered once (a run cut by the kill or the stops is not).
    // (The killed instance's last log lines may be lost with it, so runs are not held to the log's count.)
    const ran = existsSync(runsFile) ? readFileSync(runsFile, 'utf8').split('\n').filter(Boolean).length : 0;
    expect(posts().length).toBeLessThanOrEqual(ran);
    expect(started.length - posts().length).toBeLessThanOrEqual(3);
    expect(posts().every((sent) => sent.text === `⏰ ${added.id} (every 1s): tick`)).toBe(true);
    // After the kill the survivors ran it, and the killed one nothing more.
    const after = started.filter((line) => Number(line.time) > killedAt);
    expect(after.length).toBeGreaterThanOrEqual(3);
    expect(after.every((line) => line.pid === a.child.pid || line.pid === c.child.pid)).toBe(true);
  }, 120_000);
});
