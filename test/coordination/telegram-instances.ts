import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { CronStore } from '../../src/cron/index.js';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply } from '../fakes/openai-server.js';
import { e2eModel } from '../fakes/slack-e2e-model.js';
import { FakeTelegramApi } from '../fakes/telegram-api.js';
import { redisSkipReason, startRedis, type TestRedis } from '../helpers/redis.js';
import { processesMissing, startGatewayProcess, stopGatewayProcess, writeInstancesConfig, type GatewayProcess } from './gateway-processes.js';

/*
 * The fixture of the several-instances tests on Telegram: one Redis, one fake Bot API, one fake
 * model and one HERMES_HOME shared by `hermes gateway` processes, made before the file's tests
 * and undone after them.
 */

/** Whether `what` can run here (Redis and the built CLI); under CI=true it runs and fails on what is missing. */
export function instancesCanRun(what: string): boolean {
  const missingRedis = redisSkipReason(what);
  const why = processesMissing();
  if (why && process.env.CI !== 'true') console.warn(`${what} cannot run here: ${why}`);
  return !missingRedis && (!why || process.env.CI === 'true');
}

type ConfigOverrides = Parameters<typeof writeInstancesConfig>[2];

export interface TelegramInstancesOptions {
  /** The temp HERMES_HOME's name prefix. */
  name: string;
  /** The variable that holds the fake model's key. */
  keyVar: string;
  /** The Telegram user ids let in (each a private chat). */
  allowed: number[];
  /** Merged into the shared config.yaml. */
  config?: ConfigOverrides;
  /** The fake model's answers; the shared e2e model by default. */
  model?: (home: string) => FakeReply;
  /** Run after the config is written and before any instance starts (jobs, folders). */
  prepare?: (home: string) => void;
  /** How many instances start before the tests (the tests start the rest with `start`). */
  count?: number;
}

/** What a test reads of the fixture; filled in by its beforeAll. */
export class TelegramInstances {
  redis!: TestRedis;
  api!: FakeTelegramApi;
  model!: FakeOpenAI;
  home!: string;
  readonly instances: GatewayProcess[] = [];

  constructor(private readonly allowed: number[], private readonly keyVar: string) {}

  /** The environment every instance starts with. */
  env(): Record<string, string> {
    return { [this.keyVar]: 'sk-fake', TELEGRAM_BOT_TOKEN: this.api.token, TELEGRAM_ALLOWED_USERS: this.allowed.join(',') };
  }

  /** Starts one more instance (stopped after the tests). */
  async start(): Promise<GatewayProcess> {
    const instance = await startGatewayProcess(this.home, this.env());
    this.instances.push(instance);
    return instance;
  }
}

/** Registers the beforeAll that makes the fixture and the afterAll that stops and removes it. */
export function useTelegramInstances(options: TelegramInstancesOptions): TelegramInstances {
  const fixture = new TelegramInstances(options.allowed, options.keyVar);
  beforeAll(async () => {
    fixture.redis = await startRedis();
    fixture.api = await new FakeTelegramApi().start();
    fixture.home = mkdtempSync(join(tmpdir(), `hermes-${options.name}-`));
    fixture.model = await startFakeOpenAI({ fallback: (options.model ?? e2eModel)(fixture.home) });
    const { model, api, redis, home } = fixture;
    writeInstancesConfig(home, { modelUrl: model.url, keyVar: options.keyVar, telegramApiRoot: api.apiRoot, redisUrl: redis.url }, options.config);
    options.prepare?.(home);
    for (let i = 0; i < (options.count ?? 0); i++) await fixture.start();
  }, 90_000);

  afterAll(async () => {
    for (const instance of fixture.instances) await stopGatewayProcess(instance);
    await fixture.model?.close();
    await fixture.api?.close();
    await fixture.redis?.stop();
    if (fixture.home) rmSync(fixture.home, { recursive: true, force: true });
  }, 60_000);
  return fixture;
}

/** Adds a script job of a private chat's thread to HERMES_HOME/state.db; returns its id. */
export function addScriptJob(home: string, chat: number, job: { schedule: string; payload: string; nextRunAt: number }): string {
  const store = CronStore.open(join(home, 'state.db'));
  try {
    const threadKey = `telegram:${chat}`;
    const added = store.add(
      { threadKey, platform: 'telegram', target: JSON.stringify({ threadKey, chatId: chat }), audience: 'others', kind: 'script', deliver: 'thread', ...job },
      { perThread: 10, total: 10 },
    );
    if (typeof added === 'string') throw new Error(`could not add the job: ${added}`);
    return added.id;
  } finally {
    store.close();
  }
}
