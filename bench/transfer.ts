/*
 * `npm run bench -- transfer`: files in and out of every backend through the one front door
 * (uploadTo / downloadFrom). Per backend, the time to move 10 MB each way next to local (this
 * host's file system, the baseline), and the gateway's peak RSS above idle while it moves a
 * 100 MB file each way (target ≤ 64 MB: streamed, never buffered whole). Backends that cannot
 * run here (no sshd, no container engine) say why. Prints figures; asserts nothing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { buffer } from 'node:stream/consumers';
import { hermesPaths, validateConfig } from '../src/config/index.js';
import { EnvironmentManager, LocalEnvironment, findExecutable, loadProviderRegistry, type Environment, type ExecuteOptions, type ExecuteResult } from '../src/environments/index.js';
import { DockerProvider, chooseEngine } from '../src/environments/docker/index.js';
import { SshEnvironment } from '../src/environments/ssh/index.js';
import { downloadFrom, uploadTo } from '../src/environments/transfer/index.js';
import { silentLogger } from '../src/shared/index.js';
import { benchSshdUnavailable, startBenchSshd } from './sshd.js';
import { fmt, median, timeRuns } from './stats.js';

const MB = 1024 * 1024;
const IMAGE = process.env.HERMES_DOCKER_TEST_IMAGE || 'localhost/hermes-python:bookworm';

interface Backend {
  name: string;
  env: Environment;
  /** A folder in the environment for the bench's files. */
  dir: string;
  /** Runs of the 10 MB figures (the execute fallback is slow by design). */
  runs: number;
  /** Whether to move 100 MB (not through the execute fallback: thousands of commands). */
  big: boolean;
}

/** A plugin environment with nothing but `execute`: files move in base64 chunks. */
class ExecuteOnly implements Environment {
  readonly cwd: string;
  constructor(private readonly inner: LocalEnvironment) {
    this.cwd = inner.cwd;
  }
  execute(command: string, options?: ExecuteOptions): Promise<ExecuteResult> {
    return this.inner.execute(command, options);
  }
  cleanup(): Promise<void> {
    return this.inner.cleanup();
  }
}

/** Peak RSS above the RSS when it started, in MB, while `work` runs (sampled every 5 ms). */
async function peakRss(work: () => Promise<unknown>): Promise<number> {
  const idle = process.memoryUsage.rss();
  let peak = idle;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  return (peak - idle) / MB;
}

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-transfer-'));
  const host = mkdtempSync(join(tmpdir(), 'hermes-bench-transfer-host-'));
  const cleanups: (() => Promise<void> | void)[] = [];
  const list: Backend[] = [];
  const childEnv = () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' });
  try {
    const localCwd = mkdtempSync(join(tmpdir(), 'hermes-bench-transfer-local-'));
    const local = new LocalEnvironment({ cwd: localCwd, timeout: 600, childEnv });
    list.push({ name: 'local (host file system, baseline)', env: local, dir: localCwd, runs: 3, big: true });
    cleanups.push(() => rmSync(localCwd, { recursive: true, force: true }));

    if (findExecutable('bwrap')) {
      const { config } = validateConfig({ terminal: { backend: 'sandbox' } }, 'bench');
      const paths = hermesPaths(home);
      const { registry } = await loadProviderRegistry({ config, paths });
      const manager = new EnvironmentManager({ config, paths, registry });
      const sandbox = await manager.environmentFor('bench');
      list.push({ name: 'sandbox (cat inside bubblewrap)', env: sandbox, dir: sandbox.cwd, runs: 3, big: true });
      cleanups.push(() => manager.closeAll());
    } else {
      console.log('transfer: sandbox skipped — bubblewrap (bwrap) is not installed');
    }

    const noSshd = benchSshdUnavailable();
    if (!noSshd) {
      const sshd = await startBenchSshd();
      cleanups.push(() => sshd.stop());
      const sshCwd = mkdtempSync(join(tmpdir(), 'hermes-bench-transfer-ssh-'));
      cleanups.push(() => rmSync(sshCwd, { recursive: true, force: true }));
      const ssh = await SshEnvironment.connect({
        target: { host: '127.0.0.1', user: 'root', port: sshd.port, key: sshd.key, persistent: true, connectTimeout: 5 },
        hermesHome: home, cwd: sshCwd, timeout: 600, childEnv, maxOutputBytes: 50_000, graceMs: 2000,
      });
      cleanups.push(() => ssh.cleanup());
      list.push({ name: 'ssh (cat over the shared connection, loopback)', env: ssh, dir: sshCwd, runs: 3, big: true });
    } else {
      console.log(`transfer: ssh skipped — ${noSshd}`);
    }

    const engine = (await chooseEngine('')).use;
    const image = engine !== undefined && spawnSync(engine.path, ['image', 'inspect', '--format', '{{.Id}}', IMAGE], { stdio: 'ignore' }).status === 0;
    if (engine && image) {
      const { config } = validateConfig({ terminal: { container_persistent: false, docker: { image: IMAGE } } }, 'bench');
      const docker = await new DockerProvider({ config, paths: hermesPaths(home) }).createEnvironment({ cwd: '/', timeout: 600, taskId: 'bench-transfer', logger: silentLogger() });
      cleanups.push(() => docker.cleanup());
      list.push({ name: `docker (${engine.client} exec -i cat)`, env: docker, dir: '/workspace', runs: 3, big: true });
    } else {
      console.log(`transfer: docker skipped — ${engine ? `the image ${IMAGE} is missing (bash .ci/build-image.sh)` : 'no container engine answers'}`);
    }

    const bareCwd = mkdtempSync(join(tmpdir(), 'hermes-bench-transfer-plugin-'));
    cleanups.push(() => rmSync(bareCwd, { recursive: true, force: true }));
    list.push({ name: 'plugin with only execute (base64 chunks)', env: new ExecuteOnly(new LocalEnvironment({ cwd: bareCwd, timeout: 600, childEnv })), dir: bareCwd, runs: 1, big: false });

    // The 100 MB source is made by a child, so the bench's own heap never holds it.
    const source = join(host, 'source-100mb.bin');
    execFileSync('sh', ['-c', 'head -c "$1" /dev/urandom > "$2"', 'make-source', String(100 * MB), source]);
    // Measured first, before the 10 MB figures (and the whole-file baseline) grow the heap,
    // after one streamed 8 MB round trip per backend, so first-use costs (code, buffers) are not counted.
    const warm = join(host, 'warm-8mb.bin');
    execFileSync('sh', ['-c', 'head -c "$1" /dev/urandom > "$2"', 'make-warm', String(8 * MB), warm]);
    for (const backend of list.filter((entry) => entry.big)) {
      await uploadTo(backend.env, warm, `${backend.dir}/warm.bin`);
      await pipeline(await downloadFrom(backend.env, `${backend.dir}/warm.bin`), createWriteStream(join(host, 'back.bin')));
    }
    for (const backend of list.filter((entry) => entry.big)) {
      const path = `${backend.dir}/bench-100mb.bin`;
      const up = await peakRss(() => uploadTo(backend.env, source, path));
      const down = await peakRss(async () => pipeline(await downloadFrom(backend.env, path), createWriteStream(join(host, 'back.bin'))));
      console.log(`100 MB on ${backend.name}: gateway peak RSS above idle ${fmt(up, 1)} MB uploading, ${fmt(down, 1)} MB downloading (target ≤ 64 MB)`);
      await backend.env.execute(`rm -f '${path}'`);
    }
    const whole = await peakRss(async () => buffer(await downloadFrom(list[0].env, source)));
    console.log(`100 MB read whole into memory instead (the baseline streaming avoids): gateway peak RSS above idle ${fmt(whole, 1)} MB`);
    console.log('100 MB on the plugin with only execute: not measured (4,300 download commands of 24 KB; a plugin that moves big files should offer upload/download)');
    const ten = randomBytes(10 * MB);
    let baseUp = NaN;
    let baseDown = NaN;
    for (const backend of list) {
      const path = `${backend.dir}/bench-10mb.bin`;
      await uploadTo(backend.env, ten.subarray(0, MB), path);
      const up = median(await timeRuns(backend.runs, () => uploadTo(backend.env, ten, path)));
      const down = median(await timeRuns(backend.runs, async () => buffer(await downloadFrom(backend.env, path))));
      if (Number.isNaN(baseUp)) [baseUp, baseDown] = [up, down];
      console.log(
        `10 MB on ${backend.name}: upload median ${fmt(up, 0)} ms (${fmt(10 / (up / 1000), 0)} MB/s, ${fmt(up / baseUp, 1)}x local), ` +
          `download ${fmt(down, 0)} ms (${fmt(10 / (down / 1000), 0)} MB/s, ${fmt(down / baseDown, 1)}x local)`,
      );
    }

  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(home, { recursive: true, force: true });
    rmSync(host, { recursive: true, force: true });
  }
}
