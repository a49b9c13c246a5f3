import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { packageRoot } from '../../src/shared/package-root.js';

const DROPPED = /^(HERMES_|TELEGRAM_|SLACK_|DISCORD_|npm_)/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of `pid`'s children, grandchildren and so on (Linux /proc). */
function descendantsOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  const children = text === '' ? [] : text.split(/\s+/).map(Number);
  return children.flatMap((child) => [child, ...descendantsOf(child)]);
}

/** Resolves when `check` holds, checking every 100 ms; fails after `ms` saying what it waited for. */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await sleep(100);
  }
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('npm start', () => {
  it('stops the gateway when npm itself is sent SIGTERM: the gateway\'s pid is gone and its port closed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-npm-start-'));
    writeFileSync(join(home, 'config.yaml'), 'platforms:\n  web:\n    port: 0\n');
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !DROPPED.test(name)));
    const npm = spawn('npm', ['start', '--silent'], { cwd: packageRoot(), env: { ...env, HERMES_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    let gateway: number[] = [];
    try {
      await until(() => /web chat: http:\/\/127\.0\.0\.1:\d+\//.test(out), `the web chat's address in npm start's output (so far: ${out})`, 60_000);
      const port = Number(/web chat: http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1]);
      expect(await refused(port)).toBe(false);
      gateway = descendantsOf(npm.pid!);
      expect(gateway.length).toBeGreaterThan(0);
      process.kill(npm.pid!, 'SIGTERM');
      await exited;
      await until(() => gateway.every((pid) => !alive(pid)), `the gateway (pids ${gateway.join(', ')}) to exit`);
      expect(await refused(port)).toBe(true);
      expect(out).toContain('hermes gateway: SIGTERM, shutting down');
    } finally {
      for (const pid of gateway) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  }, 90_000);
});
