import { describe, expect, it } from 'vitest';
import { redisUrlFrom } from '../../src/coordination/index.js';
import { validateConfig } from '../../src/config/index.js';
import { testConfig } from '../gateway/helpers.js';

describe('coordination settings', () => {
  it('default to one instance (backend none)', () => {
    expect(testConfig().coordination).toEqual({ backend: 'none', redis_url: '', lease_seconds: 10 });
  });

  it('refuse a backend other than none or redis, naming the key', () => {
    expect(() => validateConfig({ coordination: { backend: 'etcd' } }, 'config.yaml')).toThrow(/config\.yaml: coordination\.backend.*none, redis/);
  });

  it('take the Redis address from coordination.redis_url, else REDIS_URL (from the environment or .env)', () => {
    const set = testConfig({ coordination: { backend: 'redis', redis_url: 'redis://10.0.0.5:6379/2' } });
    expect(redisUrlFrom(set, { REDIS_URL: 'redis://elsewhere:1' })).toBe('redis://10.0.0.5:6379/2');
    const fromEnv = testConfig({ coordination: { backend: 'redis' } });
    expect(redisUrlFrom(fromEnv, { REDIS_URL: 'redis://:pw@127.0.0.1:6380' })).toBe('redis://:pw@127.0.0.1:6380');
  });

  it('refuse a missing or non-Redis address with the fix, never echoing the address (it may hold a password)', () => {
    const redis = testConfig({ coordination: { backend: 'redis' } });
    expect(() => redisUrlFrom(redis, {})).toThrow(/set coordination\.redis_url or REDIS_URL/);
    let message = '';
    try {
      redisUrlFrom(redis, { REDIS_URL: 'http://user:hunter2@cache:6379' });
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).toMatch(/must start with redis:\/\/ or rediss:\/\//);
    expect(message).not.toContain('hunter2');
  });
});
