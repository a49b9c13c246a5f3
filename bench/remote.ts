/*
 * `npm run bench -- remote`: execute_code on SSH and Docker next to local, in one run. Starts
 * its own sshd on 127.0.0.1 (root, a generated key, like test/helpers/sshd.ts) and uses the
 * container engine that answers with localhost/hermes-python:bookworm (HERMES_DOCKER_TEST_IMAGE
 * names another). Per backend: the tool-call round trip as a session kernel's cell sees it
 * over the stream channel (target p50 <= 2 ms) and over the file transport, a one-shot script
 * over each, the stdout latency (a printed line -> the gateway has it) and the interrupt
 * latency (abort -> the result, which waits for the script's group to be gone). Local is the
 * baseline. Prints figures; asserts nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import { createCodeExecutor, renderStub, type ExecuteCodeResult } from '../src/execute-code/index.js';
import { RemoteCodeRunner } from '../src/execute-code/remote/index.js';
import { SshEnvironment } from '../src/environments/ssh/index.js';
import { DockerProvider, chooseEngine } from '../src/environments/docker/index.js';
import { LocalEnvironment, type Environment } from '../src/environments/index.js';
import { ToolRegistry, defineTool, type ToolContext } from '../src/tools/index.js';
import { SCRIPT_TOOL_SIGNATURES, scriptTools } from '../src/tools/builtin/index.js';
import { validateConfig, hermesPaths } from '../src/config/index.js';
import { silentLogger } from '../src/shared/index.js';
import { fmt, median, percentile } from './stats.js';
import { benchSshdUnavailable, startBenchSshd, type BenchSshd } from './sshd.js';

const IMAGE = process.env.HERMES_DOCKER_TEST_IMAGE || 'localhost/hermes-python:bookworm';
const STREAM_CALLS = 500;
const FILE_CALLS = 20;
const LATENCY_LINES = 40;
const INTERRUPTS = 5;

/** A throwaway sshd on loopback; undefined (with the reason printed) when it cannot run. */
async function startSshd(): Promise<BenchSshd | undefined> {
  const why = benchSshdUnavailable();
  if (why) {
    console.log(`remote: ssh skipped — ${why}`);
    return undefined;
  }
  return startBenchSshd();
}

/** The docker backend on the engine that answers, or undefined (the reason printed). */
async function startDocker(home: string): Promise<Environment | undefined> {
  const choice = await chooseEngine('');
  if (!choice.use) {
    console.log('remote: docker skipped — no container engine answers');
    return undefined;
  }
  const image = await execa(choice.use.path, ['image', 'inspect', IMAGE], { reject: false, stdin: 'ignore' });
  if (image.exitCode !== 0) {
    console.log(`remote: docker skipped — ${choice.use.client} answers but ${IMAGE} is missing (bash .ci/build-image.sh)`);
    return undefined;
  }
  const { config } = validateConfig({ terminal: { container_persistent: false, docker: { image: IMAGE } } }, 'bench');
  return new DockerProvider({ config, paths: hermesPaths(home) }).createEnvironment({ cwd: '/', timeout: 60, taskId: 'bench-remote', logger: silentLogger() });
}

/** The environment without its stream: execute_code takes the file transport. */
const filesOnly = (env: Environment): Environment => Object.create(env, { openStream: { value: undefined } }) as Environment;

const roundTrip = (calls: number) =>
  [
    'import time',
    'from hermes_tools import read_file',
    'read_file(path="warm")',
    'samples = []',
    `for _ in range(${calls}):`,
    '    t = time.perf_counter()',
    '    read_file(path="x")',
    '    samples.append((time.perf_counter() - t) * 1000)',
    'samples.sort()',
    'print(samples[len(samples) // 2], samples[min(len(samples) - 1, len(samples) * 99 // 100)])',
  ].join('\n');

const printLines = (lines: number) =>
  `import time\nfor _ in range(${lines}):\n    print("@t", time.time(), flush=True)\n    time.sleep(0.02)`;

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-remote-'));
  const cwd = mkdtempSync(join(tmpdir(), 'hermes-bench-remote-cwd-'));
  const noop = defineTool({ name: 'read_file', description: 'no-op', args: z.object({}).passthrough(), run: async () => ({}) });
  const registry = new ToolRegistry([noop, ...scriptTools().filter((tool) => tool.name !== 'read_file')]);
  // The file transport's figures are its own: SSH's forwarded socket is measured apart.
  const overrides = { code_execution: { max_tool_calls: 100_000 }, terminal: { ssh: { direct_channel: false } } };
  const { config } = validateConfig(overrides, 'bench');
  const executors = [true, false].map((kernels) =>
    createCodeExecutor({ home, cwd, registry, config: { ...overrides, code_execution: { ...overrides.code_execution, session_kernels: kernels } } }),
  );
  const [withKernels, oneShots] = executors;
  const direct = createCodeExecutor({ home, cwd, registry, config: { code_execution: { max_tool_calls: 100_000, session_kernels: false } } });
  executors.push(direct);
  const context = (environment: Environment, signal?: AbortSignal): ToolContext => ({
    sessionId: 'bench', signal: signal ?? new AbortController().signal, environment, logger: silentLogger(), config, paths: hermesPaths(home), passthrough: new Set(),
  });
  let session = 0;
  const exec = async (via: typeof withKernels, environment: Environment, code: string, owner = 'bench'): Promise<ExecuteCodeResult> => {
    const result = await via.execute({ code, sessionId: owner, context: context(environment) });
    if (result.status !== 'success') throw new Error(`bench script failed: ${JSON.stringify(result).slice(0, 500)}`);
    return result;
  };
  const figures = (result: ExecuteCodeResult) => result.output.trim().split(' ').map(Number);

  const local = new LocalEnvironment({ cwd, timeout: 60, childEnv: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }) });
  const backends: { name: string; env: Environment; cleanup(): Promise<void> }[] = [];
  const sshd = await startSshd();
  if (sshd) {
    const ssh = await SshEnvironment.connect({
      target: { host: '127.0.0.1', user: 'root', port: sshd.port, key: sshd.key, persistent: true, connectTimeout: 5 },
      hermesHome: home, cwd, timeout: 60, childEnv: () => ({ LANG: 'C.UTF-8' }), maxOutputBytes: 50_000, graceMs: 2000,
    });
    backends.push({ name: 'ssh', env: ssh, cleanup: async () => (await ssh.cleanup(), sshd.stop()) });
  }
  const docker = await startDocker(home).catch((error: unknown) => (console.log(`remote: docker skipped — ${String(error)}`), undefined));
  if (docker) backends.push({ name: 'docker', env: docker, cleanup: () => docker.cleanup() });

  try {
    const [localP50, localP99] = figures(await exec(withKernels, local, roundTrip(STREAM_CALLS), 'local'));
    console.log(`tool-call round trip, local kernel (Unix socket, baseline), ${STREAM_CALLS} calls: p50 ${fmt(localP50, 3)} ms, p99 ${fmt(localP99, 3)} ms`);
    for (const backend of backends) {
      const owner = () => `${backend.name}-${++session}`;
      const streamOwner = owner();
      const [streamP50, streamP99] = figures(await exec(withKernels, backend.env, roundTrip(STREAM_CALLS), streamOwner));
      const filesOwner = owner();
      const [filesP50, filesP99] = figures(await exec(withKernels, filesOnly(backend.env), roundTrip(FILE_CALLS), filesOwner));
      const [shotP50] = figures(await exec(oneShots, backend.env, roundTrip(STREAM_CALLS)));
      const [shotFilesP50] = figures(await exec(oneShots, filesOnly(backend.env), roundTrip(FILE_CALLS)));
      console.log(
        `tool-call round trip, ${backend.name} kernel over the stream, ${STREAM_CALLS} calls: p50 ${fmt(streamP50, 3)} ms, p99 ${fmt(streamP99, 3)} ms ` +
          `(${fmt(streamP50 / localP50)}x local; target p50 <= 2 ms)`,
      );
      console.log(
        `tool-call round trip, ${backend.name} kernel over the file transport, ${FILE_CALLS} calls: p50 ${fmt(filesP50, 2)} ms, p99 ${fmt(filesP99, 2)} ms ` +
          `(${fmt(filesP50 / streamP50, 0)}x the stream)`,
      );
      const forwarded = backend.name === 'ssh' ? `, forwarded socket (direct channel) p50 ${fmt(figures(await exec(direct, filesOnly(backend.env), roundTrip(STREAM_CALLS)))[0], 3)} ms` : '';
      console.log(`tool-call round trip, ${backend.name} one-shot script: stream p50 ${fmt(shotP50, 3)} ms, file transport p50 ${fmt(shotFilesP50, 2)} ms${forwarded}`);
      await withKernels.resetSession(streamOwner);
      await withKernels.resetSession(filesOwner);
      await readFileRoundTrip(backend, local, context);
      await stdoutLatency(backend, registry, config, home);
      await interruptLatency(backend, registry, config, home);
    }
  } finally {
    await Promise.all(executors.map((made) => made.close()));
    for (const backend of backends) await backend.cleanup();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

type Config = ReturnType<typeof validateConfig>['config'];

/** The real read_file tool, as the model (or a script's hermes_tools) calls it: over the helper stream, the shell path, local. */
async function readFileRoundTrip(
  backend: { name: string; env: Environment },
  local: Environment,
  context: (environment: Environment) => ToolContext,
): Promise<void> {
  const tools = new ToolRegistry(scriptTools());
  // Without readFile the tool takes its shell path: a probe and a read, each one command.
  const shellPath = Object.create(backend.env, { readFile: { value: undefined }, writeFile: { value: undefined } }) as Environment;
  const path = `${backend.env.cwd}/bench-read.txt`;
  await backend.env.writeFile?.(path, 'a line of text\n'.repeat(100));
  const time = async (environment: Environment, file: string, times: number) => {
    const ctx = context(environment);
    await tools.dispatch('read_file', { path: file }, ctx);
    const samples: number[] = [];
    for (let i = 0; i < times; i++) {
      const start = performance.now();
      const result = (await tools.dispatch('read_file', { path: file }, ctx)) as { error?: string };
      samples.push(performance.now() - start);
      if (result.error) throw new Error(`bench read_file failed: ${result.error}`);
    }
    return median(samples);
  };
  const localPath = join(local.cwd, 'bench-read.txt');
  writeFileSync(localPath, 'a line of text\n'.repeat(100));
  const [stream, shell, onLocal] = [await time(backend.env, path, 200), await time(shellPath, path, 10), await time(local, localPath, 200)];
  console.log(
    `read_file (the tool, 1.5 KB), ${backend.name}: over the file helper's stream median ${fmt(stream, 2)} ms, the shell path (two commands a read) ${fmt(shell, 1)} ms, ` +
      `local ${fmt(onLocal, 2)} ms (target <= 5 ms on Docker)`,
  );
}

/** The executor's remote path with a stdout hook (the executor does not expose one yet). */
function hookedRunner(config: Config, registry: ToolRegistry, home: string, kernels: boolean, onStdout: (chunk: Buffer) => void) {
  const runner = new RemoteCodeRunner({
    config: { ...config, code_execution: { ...config.code_execution, session_kernels: kernels } },
    registry,
    logger: silentLogger(),
    spillDir: join(home, 'spill'),
    onStdout,
  });
  const stub = renderStub([{ name: 'read_file', ...SCRIPT_TOOL_SIGNATURES.read_file }]);
  const execute = (environment: Environment, owner: string, code: string, signal = new AbortController().signal) =>
    runner.execute({
      owner, code, reset: false, stub, allowed: new Set(['read_file']),
      context: { sessionId: 'bench', signal, environment, logger: silentLogger(), config, paths: hermesPaths(home), passthrough: new Set<string>() },
      passthrough: [], startedMs: performance.now(),
    });
  return { execute, close: () => runner.close() };
}

/** A printed line (its time.time() inside) -> the gateway's stdout hook has it; one-shot and kernel. */
async function stdoutLatency(backend: { name: string; env: Environment }, registry: ToolRegistry, config: Config, home: string): Promise<void> {
  for (const kernels of [false, true]) {
    const delays: number[] = [];
    let pending = '';
    const runner = hookedRunner(config, registry, home, kernels, (chunk) => {
      const now = Date.now() / 1000;
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('@t ')) delays.push((now - Number(line.slice(3))) * 1000);
    });
    await runner.execute(backend.env, `latency-${kernels}`, printLines(LATENCY_LINES));
    await runner.close();
    console.log(
      `stdout latency, ${backend.name} ${kernels ? 'kernel cell' : 'one-shot script'} over the stream (print -> the gateway has the line), ${delays.length} lines: ` +
        `p50 ${fmt(median(delays), 2)} ms, p90 ${fmt(percentile(delays, 90), 2)} ms`,
    );
  }
}

/** A new message -> the interrupted result (which returns once the script's group is gone). */
async function interruptLatency(backend: { name: string; env: Environment }, registry: ToolRegistry, config: Config, home: string): Promise<void> {
  const code = 'import subprocess, time\nsubprocess.Popen(["sleep", "300"])\nprint("running", flush=True)\ntime.sleep(300)';
  for (const kernels of [true, false]) {
    let seen: (() => void) | undefined;
    const runner = hookedRunner(config, registry, home, kernels, (chunk) => void (chunk.toString('utf8').includes('running') && seen?.()));
    const times: number[] = [];
    for (let i = 0; i < INTERRUPTS; i++) {
      const controller = new AbortController();
      const running = new Promise<void>((resolve) => (seen = resolve));
      const result = runner.execute(backend.env, `interrupt-${kernels}`, code, controller.signal);
      // The figure is abort -> result only: the script is running (its line arrived) first.
      await running;
      const start = performance.now();
      controller.abort('user sent a new message');
      const outcome = await result;
      times.push(performance.now() - start);
      if (outcome.status !== 'interrupted') console.log(`  (${backend.name}: ${outcome.status}: ${outcome.output.slice(0, 200)})`);
    }
    await runner.close();
    console.log(
      `interrupt, ${backend.name} ${kernels ? 'kernel cell' : 'one-shot script'} over the stream (abort -> result, the group gone), ${INTERRUPTS} runs: ` +
        `median ${fmt(median(times), 1)} ms, max ${fmt(Math.max(...times), 1)} ms (target 100 ms)`,
    );
  }
}
