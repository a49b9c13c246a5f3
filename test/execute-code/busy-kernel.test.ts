import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { hermesPaths } from '../../src/config/paths.js';
import { DockerProvider } from '../../src/environments/docker/index.js';
import type { Environment } from '../../src/environments/index.js';
import { cellResult } from '../../src/execute-code/kernel-cells.js';
import type { CellOutcome, Kernel } from '../../src/execute-code/kernel/index.js';
import { RemoteKernel, StreamKernel, offersStream, remoteScriptEnv, streamScriptEnv, type RemoteCellOptions } from '../../src/execute-code/remote/index.js';
import { KERNEL_BUSY_NOTICE } from '../../src/shared/notices.js';
import { silentLogger } from '../../src/shared/logger.js';
import { TEST_IMAGE, engineSkipReason, requireEngine } from '../helpers/container-engine.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../helpers/sshd.js';
import { tempDir } from '../helpers/tool-context.js';
import { connectTo } from '../environments/ssh/helpers.js';
import { runKernelTests, startKernel } from './kernel/helpers.js';
import { filesOnly } from './remote/helpers.js';

/*
 * A cell sent to a kernel that is running another cell gets the same answer on every
 * transport — `{ kind: 'busy' }`, nothing of it runs, and the running cell goes on undisturbed
 * in a kernel that lives on: local (Unix socket), SSH (stream frames, polled files), Docker
 * (stream frames, polled files). Under CI=true nothing skips.
 */

const ci = process.env.CI === 'true';
const sshMissing = ci ? undefined : sshdUnavailable();
const dockerMissing = await engineSkipReason();
for (const [what, why] of [['SSH', sshMissing], ['Docker', dockerMissing]] as const) {
  if (why) console.warn(`the busy-kernel test over ${what} cannot run here: ${why}`);
}

/** Every kernel takes a remote cell's options (the fetch caps matter only over polled files). */
type AnyKernel = Kernel<RemoteCellOptions>;

/** A remote kernel on `env`: over its stream when `stream`, else over polled files. */
function remoteKernel(env: Environment, stream: boolean): Promise<AnyKernel> {
  const cwd = env.cwd;
  const handler = async () => ({});
  if (stream) {
    if (!offersStream(env)) throw new Error('this environment offers no stream');
    return StreamKernel.start({ environment: env, stub: '', cwd, env: streamScriptEnv([]), graceMs: 1000, maxConnections: 4, handler });
  }
  return RemoteKernel.start({
    environment: filesOnly(env), stub: '', cwd, env: (dir) => remoteScriptEnv(dir, []), idleSeconds: 60, graceMs: 1000, maxOutputBytes: 50_000, handler,
  });
}

interface Transport {
  name: string;
  missing: string | undefined;
  /** Sets up what the transport needs; returns how to start one kernel on it and how to clean up. */
  setup(): Promise<{ start(): Promise<AnyKernel>; cleanup(): Promise<void> }>;
}

function sshTransport(stream: boolean): Transport {
  return {
    name: `SSH, ${stream ? 'stream frames' : 'polled files'}`,
    missing: sshMissing,
    async setup() {
      const sshd: TestSshd = await startSshd();
      const work = mkdtempSync(join(tmpdir(), 'hermes-busy-ssh-'));
      const env = await connectTo(sshd, { cwd: work });
      return {
        start: () => remoteKernel(env, stream),
        cleanup: async () => {
          await env.cleanup();
          await sshd.stop();
          rmSync(work, { recursive: true, force: true });
        },
      };
    },
  };
}

function dockerTransport(stream: boolean): Transport {
  return {
    name: `Docker, ${stream ? 'stream frames' : 'polled files'}`,
    missing: dockerMissing,
    async setup() {
      await requireEngine();
      const { config } = validateConfig({ terminal: { container_persistent: false, docker: { image: TEST_IMAGE } } }, 'test');
      const provider = new DockerProvider({ config, paths: hermesPaths(tempDir('hermes-busy-docker-home-')) });
      const env = await provider.createEnvironment({ cwd: '/', timeout: 60, taskId: `busy-kernel-${stream ? 'stream' : 'files'}`, logger: silentLogger() });
      return { start: () => remoteKernel(env, stream), cleanup: () => env.cleanup() };
    },
  };
}

const transports: Transport[] = [
  {
    name: 'local, Unix socket',
    missing: runKernelTests ? undefined : 'no python3 >= 3.8',
    setup: async () => ({ start: () => startKernel(), cleanup: async () => {} }),
  },
  sshTransport(true),
  sshTransport(false),
  dockerTransport(true),
  dockerTransport(false),
];

/** Runs a cell, collecting what it wrote. */
function run(kernel: AnyKernel, code: string): { output: { stdout: string; stderr: string }; outcome: Promise<CellOutcome> } {
  const output = { stdout: '', stderr: '' };
  const outcome = kernel.runCell(code, {
    timeoutMs: 60_000,
    maxStdoutFetch: 50_000,
    maxStderrBytes: 50_000,
    onStdout: (chunk) => (output.stdout += chunk.toString('utf8')),
    onStderr: (chunk) => (output.stderr += chunk.toString('utf8')),
  });
  return { output, outcome };
}

describe.each(transports)('a cell sent to a busy kernel ($name)', (transport) => {
  let setup: Awaited<ReturnType<Transport['setup']>> | undefined;

  beforeAll(async () => {
    if (!transport.missing) setup = await transport.setup();
  }, 300_000);

  afterAll(async () => {
    await setup?.cleanup();
  });

  it.runIf(!transport.missing)('is answered busy and not run; the running cell finishes and the kernel lives on', async () => {
    const kernel = await setup!.start();
    try {
      const first = run(kernel, 'import time\nx = 41\nprint("first", flush=True)\ntime.sleep(2)\nprint("done")');
      // Let the first cell be under way on the far side.
      await sleep(700);
      const second = run(kernel, 'x = 0\nprint("second ran")');
      expect(await second.outcome).toEqual({ kind: 'busy' });
      expect(second.output).toEqual({ stdout: '', stderr: '' });
      expect(kernel.alive).toBe(true);
      expect(await first.outcome).toEqual({ kind: 'ok' });
      expect(first.output.stdout).toBe('first\ndone\n');
      const third = run(kernel, 'print(x + 1)');
      expect(await third.outcome).toEqual({ kind: 'ok' });
      expect(third.output.stdout).toBe('42\n');
      expect(kernel.executionCount).toBe(2);
    } finally {
      await kernel.kill();
    }
  }, 120_000);
});

it('a busy answer becomes an execute_code error that says the code was not run', () => {
  const base = { tool_calls_made: 0, duration_seconds: 0 };
  expect(cellResult({ kind: 'busy' }, '', '', 60, base)).toEqual({ status: 'error', output: KERNEL_BUSY_NOTICE, exit_code: null, error: KERNEL_BUSY_NOTICE, ...base });
});
