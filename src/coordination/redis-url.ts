import type { HermesConfig } from '../config/index.js';
import { ConfigError } from '../shared/errors.js';

/**
 * The Redis address for `coordination.backend: redis`: `coordination.redis_url`, else
 * REDIS_URL from the environment (HERMES_HOME/.env is loaded into it), since the address may
 * carry a password.
 */
export function redisUrlFrom(config: HermesConfig, env: NodeJS.ProcessEnv): string {
  const url = config.coordination.redis_url.trim() || env.REDIS_URL?.trim() || '';
  if (!url) {
    throw new ConfigError('coordination.backend is redis but no Redis address is set: set coordination.redis_url or REDIS_URL (in HERMES_HOME/.env)');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('coordination.redis_url (or REDIS_URL) is not a URL: expected redis://host:port/db or rediss://…');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new ConfigError(`coordination.redis_url (or REDIS_URL) must start with redis:// or rediss://, got ${parsed.protocol}//`);
  }
  return url;
}
