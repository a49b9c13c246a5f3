import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { redisSkipReason, startRedis } from '../helpers/redis.js';

const missing = redisSkipReason('the test redis-server helper');

function refused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
}

describe.runIf(!missing)('the tests’ own redis-server (test/helpers/redis.ts)', () => {
  it('listens on 127.0.0.1 only, keeps nothing on disk in its temp folder, and is gone with the folder after stop', async () => {
    const server = await startRedis();
    const redis = new Redis(server.url);
    try {
      await redis.set('k', 'v');
      expect(await redis.get('k')).toBe('v');
      expect(await redis.config('GET', 'save')).toEqual(['save', '']);
      expect(await redis.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      expect(await refused('127.0.0.2', server.port)).toBe(true);
      expect(readdirSync(server.dir)).toEqual([]);
    } finally {
      await redis.quit();
      await server.stop();
    }
    expect(await refused('127.0.0.1', server.port)).toBe(true);
    expect(existsSync(server.dir)).toBe(false);
  });
});
