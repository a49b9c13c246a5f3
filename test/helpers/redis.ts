import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type LoopbackServer, outputTail, requireAvailable, skipReasonOutsideCi, waitForPort } from './loopback-server.js';

/** Why a real redis-server cannot run here, or undefined when it can. */
export function redisUnavailable(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  if (probe.error) return 'redis-server is not installed (apt-get install redis-server)';
  return undefined;
}

/**
 * The reason to skip the Redis tests, printed once, or undefined when they run. Under CI=true
 * nothing skips: a missing redis-server fails the tests that need it instead.
 */
export function redisSkipReason(what: string): string | undefined {
  return skipReasonOutsideCi(what, redisUnavailable);
}

export interface TestRedis extends LoopbackServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
}

/**
 * Starts a real redis-server on 127.0.0.1 on a free port, keeping nothing on disk, with its
 * working folder in a temp folder. `stop()` ends it and removes the folder.
 */
export async function startRedis(): Promise<TestRedis> {
  requireAvailable(redisUnavailable);
  const dir = mkdtempSync(join(tmpdir(), 'hermes-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn('redis-server', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const said = outputTail(child);
  try {
    await waitForPort(port, child, 'redis-server', 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}; redis-server said: ${said()}`);
  }
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
