/*
 * `npm run bench -- remote`: execute_code over SSH next to local, in one run. Starts its own
 * sshd on 127.0.0.1 (root, a generated key, like test/helpers/sshd.ts) and measures
 * `print(1)` and a 10-tool-call script on both, and the tool-call round trip over the file
 * transport and over the direct channel (a forwarded socket). Prints figures; asserts nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { createCodeExecutor } from '../src/execute-code/index.js';
import { SshEnvironment } from '../src/environments/ssh/index.js';
import { LocalEnvironment } from '../src/environments/index.js';
import { ToolRegistry, defineTool, type ToolContext } from '../src/tools/index.js';
import { scriptTools } from '../src/tools/builtin/index.js';
import { validateConfig, hermesPaths } from '../src/config/index.js';
import { silentLogger } from '../src/shared/index.js';
import { fmt, median, timeRuns } from './stats.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A throwaway sshd on loopback; undefined (with the reason printed) when it cannot run. */
async function startSshd(): Promise<{ port: number; key: string; dir: string; stop(): void } | undefined> {
  const sshd = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((path) => existsSync(path));
  if (!sshd || process.getuid?.() !== 0) {
    console.log(`remote: skipped — ${!sshd ? 'sshd is not installed' : 'needs root to start sshd'}`);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'hermes-bench-sshd-'));
  mkdirSync('/run/sshd', { recursive: true });
  for (const name of ['host', 'user']) spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, name)]);
  // SHLVL=1: the login bash skips ~/.bashrc, whose cost is this machine's, not the transport's.
  writeFileSync(join(dir, 'authorized_keys'), `environment="SHLVL=1" ${readFileSync(join(dir, 'user.pub'), 'utf8')}`);
  const port = await freePort();
  writeFileSync(
    join(dir, 'config'),
    [`Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host')}`, `PidFile ${join(dir, 'pid')}`, 'UsePAM no',
      'PermitRootLogin prohibit-password', `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, 'StrictModes no',
      'PermitUserEnvironment SHLVL', 'MaxSessions 50', ''].join('\n'),
  );
  const child = spawn(sshd, ['-D', '-e', '-f', join(dir, 'config')], { stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    await sleep(25);
  }
  return { port, key: join(dir, 'user'), dir, stop: () => (child.kill(), rmSync(dir, { recursive: true, force: true })) };
}

export async function run(): Promise<void> {
  const sshd = await startSshd();
  if (!sshd) return;
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-remote-'));
  const cwd = mkdtempSync(join(tmpdir(), 'hermes-bench-remote-cwd-'));
  const noop = defineTool({ name: 'read_file', description: 'no-op', args: z.object({}).passthrough(), run: async () => ({}) });
  const registry = new ToolRegistry([noop, ...scriptTools().filter((tool) => tool.name !== 'read_file')]);
  const make = (direct: boolean) =>
    createCodeExecutor({
      home, cwd, registry,
      config: { code_execution: { session_kernels: false, max_tool_calls: 100_000 }, terminal: { ssh: { direct_channel: direct } } },
    });
  const executor = make(false);
  const directExecutor = make(true);
  const ssh = await SshEnvironment.connect({
    target: { host: '127.0.0.1', user: 'root', port: sshd.port, key: sshd.key, persistent: true, connectTimeout: 5 },
    hermesHome: home, cwd, timeout: 60, childEnv: () => ({ LANG: 'C.UTF-8' }), maxOutputBytes: 50_000, graceMs: 2000,
  });
  const { config } = validateConfig({}, 'bench');
  const local = new LocalEnvironment({ cwd, timeout: 60, childEnv: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }) });
  const context = (environment: ToolContext['environment']): ToolContext => ({
    sessionId: 'bench', signal: new AbortController().signal, environment, logger: silentLogger(), config, paths: hermesPaths(home), passthrough: new Set(),
  });
  const exec = (code: string, environment: ToolContext['environment'], via = executor) =>
    via.execute({ code, sessionId: 'bench', context: context(environment) });
  const tenCalls = 'from hermes_tools import read_file\nfor i in range(10):\n    read_file(path="x")\nprint("done")';
  const roundTrip = (calls: number) =>
    `import time\nfrom hermes_tools import read_file\nread_file(path="warm")\nsamples = []\nfor _ in range(${calls}):\n    t = time.perf_counter()\n    read_file(path="x")\n    samples.append((time.perf_counter() - t) * 1000)\nsamples.sort()\nprint(samples[len(samples) // 2], samples[-1])`;
  try {
    const rawSsh = median(await timeRuns(10, () => ssh.execute('true')));
    console.log(`one command over the shared ssh connection (execute('true')): median ${fmt(rawSsh)} ms`);
    for (const [label, code, times] of [['print(1)', 'print(1)', 10], ['10 tool calls', tenCalls, 8]] as const) {
      await exec(code, local);
      await exec(code, ssh);
      await exec(code, ssh, directExecutor);
      const onLocal = median(await timeRuns(times, () => exec(code, local)));
      const onSsh = median(await timeRuns(times, () => exec(code, ssh)));
      const onDirect = median(await timeRuns(times, () => exec(code, ssh, directExecutor)));
      console.log(
        `execute_code ${label}: ssh (file transport) median ${fmt(onSsh)} ms, ssh (direct channel) ${fmt(onDirect)} ms, ` +
          `local ${fmt(onLocal)} ms (ratios ${fmt(onSsh / onLocal)}x and ${fmt(onDirect / onLocal)}x)`,
      );
    }
    const calls = 40;
    for (const [label, environment, via] of [
      ['file transport over ssh', ssh, executor],
      ['direct channel (ssh -R forwarded socket)', ssh, directExecutor],
      ['local Unix socket (baseline)', local, executor],
    ] as const) {
      const [p50, max] = (await exec(roundTrip(calls), environment, via)).output.trim().split(' ').map(Number);
      console.log(`tool-call round trip, ${label}, ${calls} calls as the script sees them: p50 ${fmt(p50, 3)} ms, max ${fmt(max, 3)} ms`);
    }
  } finally {
    await executor.close();
    await directExecutor.close();
    await ssh.cleanup();
    sshd.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}
