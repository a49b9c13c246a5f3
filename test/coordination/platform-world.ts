import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel } from '../fakes/slack-e2e-model.js';
import { redisSkipReason, startRedis } from '../helpers/redis.js';
import { gatewayStarted, processesMissing, spawnGateway, stopChild, type SpawnedGateway } from './gateway-processes.js';

const PLATFORMS = ['discord', 'slack', 'telegram', 'web'] as const;

/** Why `what` (several gateway processes on Redis) cannot run here, or undefined; under CI=true nothing is missing. */
export function instancesMissing(what: string): string | undefined {
  const redis = redisSkipReason(what);
  const processes = process.env.CI === 'true' ? undefined : processesMissing();
  if (processes) console.warn(`${what} cannot run here: ${processes}`);
  return redis ?? processes;
}

export interface PlatformWorld<Fake> {
  /** The platform's fake, started before the config that names its address. */
  fake: Fake;
  home: string;
  model: FakeOpenAI;
  /** Spawns `hermes gateway` on the home with the model key and `env`, and waits until it writes `ready`. */
  start(name: string, env: Record<string, string>, ready: string): Promise<SpawnedGateway>;
  /** Stops the gateways, closes the model, the fake and Redis, and removes the home folder. */
  close(): Promise<void>;
}

/**
 * What the several-instances tests of one chat platform share: the platform's fake (`startFake`),
 * a Redis, a fresh HERMES_HOME (`tag` in its name) whose config.yaml enables only `platform` with
 * `settings(fake)`, the e2e model with its key in `keyVar`, scripts on the host, no jobs, and
 * coordination on that Redis.
 */
export async function startPlatformWorld<Fake extends { close(): Promise<unknown> }>(options: {
  tag: string;
  keyVar: string;
  platform: (typeof PLATFORMS)[number];
  startFake: () => Promise<Fake>;
  settings: (fake: Fake) => Record<string, unknown>;
}): Promise<PlatformWorld<Fake>> {
  const fake = await options.startFake();
  const redis = await startRedis();
  const home = mkdtempSync(join(tmpdir(), `hermes-${options.tag}-`));
  const model = await startFakeOpenAI({ fallback: e2eModel(home) });
  const platforms = Object.fromEntries(PLATFORMS.map((name) => [name, name === options.platform ? options.settings(fake) : { enabled: false }]));
  const config = {
    model: { base_url: model.url, name: 'fake-model', api_key_env: options.keyVar, stream: false },
    terminal: { platform_backend: 'local' },
    cron: { enabled: false },
    platforms,
    coordination: { backend: 'redis', redis_url: redis.url },
  };
  writeFileSync(join(home, 'config.yaml'), stringify(config));
  const children: SpawnedGateway['child'][] = [];
  return {
    fake,
    home,
    model,
    async start(name, env, ready) {
      const gateway = spawnGateway(home, { [options.keyVar]: 'sk-fake', ...env });
      children.push(gateway.child);
      await gatewayStarted(gateway, ready, `instance ${name}`);
      return gateway;
    },
    async close() {
      await Promise.all(children.map(stopChild));
      await model.close();
      await fake.close();
      await redis.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
