import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.js';
import { e2eModel } from '../fakes/slack-e2e-model.js';
import { startRedis } from '../helpers/redis.js';

const PLATFORMS = ['discord', 'slack', 'telegram', 'web'] as const;

export interface PlatformWorld {
  home: string;
  model: FakeOpenAI;
  /** Closes the model and Redis and removes the home folder (the caller stops its processes first). */
  close(): Promise<void>;
}

/**
 * What the several-instances tests of one chat platform share: a Redis, a fresh HERMES_HOME
 * (`tag` in its name) whose config.yaml enables only `platform` with `settings`, the e2e model
 * with its key in `keyVar`, scripts on the host, no jobs, and coordination on that Redis.
 */
export async function startPlatformWorld(options: {
  tag: string;
  keyVar: string;
  platform: (typeof PLATFORMS)[number];
  settings: Record<string, unknown>;
}): Promise<PlatformWorld> {
  const redis = await startRedis();
  const home = mkdtempSync(join(tmpdir(), `hermes-${options.tag}-`));
  const model = await startFakeOpenAI({ fallback: e2eModel(home) });
  const platforms = Object.fromEntries(PLATFORMS.map((name) => [name, name === options.platform ? options.settings : { enabled: false }]));
  const config = {
    model: { base_url: model.url, name: 'fake-model', api_key_env: options.keyVar, stream: false },
    terminal: { platform_backend: 'local' },
    cron: { enabled: false },
    platforms,
    coordination: { backend: 'redis', redis_url: redis.url },
  };
  writeFileSync(join(home, 'config.yaml'), stringify(config));
  return {
    home,
    model,
    async close() {
      await model.close();
      await redis.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
