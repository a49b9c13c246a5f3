import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { configSchema, deepMerge, hermesPaths, validateConfig } from '../../src/config/index.js';
import { EnvironmentManager, findExecutable, loadProviderRegistry, type Environment } from '../../src/environments/index.js';
import { DockerProvider } from '../../src/environments/docker/index.js';
import { createCodeExecutor, type DefaultCodeExecutor } from '../../src/execute-code/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { makeToolContext } from '../helpers/tool-context.js';
import { processesWith, survivorsOf, waitForProcess } from '../helpers/processes.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../helpers/sshd.js';
import { TEST_IMAGE, engineSkipReason } from '../helpers/container-engine.js';
import { connectTo } from '../environments/ssh/helpers.js';
import { ESCAPES, escapingCell, markers, type Escape } from './leftovers-cases.js';

/*
 * Nothing a cell starts outlives it, on every backend: for each backend, each way a cell ends
 * and each escape (setsid, a double fork, start_new_session=True, terminal("setsid -f …"),
 * nohup … &), no process carrying the escape's marker is alive after the end. The processes
 * are looked for in this host's /proc, which sees them all here: the sandbox's, the far host's
 * (the test sshd is on loopback) and the container's (rootful podman).
 */

const CI = process.env.CI === 'true';
const bwrapMissing = process.platform !== 'linux' || findExecutable('bwrap') === undefined ? 'bubblewrap (bwrap) is not installed' : undefined;
const sshdMissing = sshdUnavailable();
const engineMissing = await engineSkipReason();
const CI_OR = (missing: string | undefined) => missing === undefined || CI;

interface Backend {
  name: 'local' | 'sandbox' | 'ssh' | 'docker';
  runs: boolean;
  /** Why it is skipped here. */
  missing?: string;
}
const BACKENDS: Backend[] = [
  { name: 'local', runs: true },
  { name: 'sandbox', runs: CI_OR(bwrapMissing), missing: bwrapMissing },
  { name: 'ssh', runs: CI_OR(sshdMissing), missing: sshdMissing },
  { name: 'docker', runs: CI_OR(engineMissing), missing: engineMissing },
];
for (const backend of BACKENDS) if (!backend.runs) console.warn(`no-leftovers: the ${backend.name} cases are skipped: ${backend.missing}`);

type End = 'normal end' | 'timeout' | 'interrupt' | 'environment cleanup';
/** How each end is brought about: what the cell does after its escapes, and what the test does meanwhile. */
const ENDS: { end: End; after: string; status: string }[] = [
  { end: 'normal end', after: 'print("END")', status: 'success' },
  { end: 'timeout', after: 'time.sleep(120)', status: 'timeout' },
  { end: 'interrupt', after: 'time.sleep(120)', status: 'interrupted' },
  { end: 'environment cleanup', after: 'time.sleep(120)', status: 'interrupted' },
];
const MODES = [
  { mode: 'session kernel', kernels: true },
  { mode: 'one-shot script', kernels: false },
];
/**
 * The timeout of the timeout cases: long enough for five sleepers to start on a busy machine
 * (the 'normal end' cases, which start the same five, take about a second on any backend).
 */
const TIMEOUT_S = 5;

let sshd: TestSshd | undefined;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  if (BACKENDS.find((b) => b.name === 'ssh')?.runs) sshd = await startSshd();
}, 60_000);
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await sshd?.stop();
}, 120_000);

/** The session's environment on `backend`, made the way the gateway makes it. */
async function environmentOn(backend: Backend['name'], home: string): Promise<Environment> {
  const cwd = mkdtempSync(join(tmpdir(), 'hermes-leftover-cwd-'));
  if (backend === 'ssh') return connectTo(sshd!, { cwd });
  if (backend === 'docker') {
    const { config } = validateConfig({ terminal: { container_persistent: false, docker: { image: TEST_IMAGE } } }, 'test');
    return new DockerProvider({ config, paths: hermesPaths(home) }).createEnvironment({ cwd: '/', timeout: 60, taskId: `leftover-${Date.now()}`, logger: silentLogger() });
  }
  const config = configSchema.parse(deepMerge({ terminal: { backend, cwd } }, {}));
  const paths = hermesPaths(home);
  const { registry } = await loadProviderRegistry({ config, paths });
  const manager = new EnvironmentManager({ config, paths, registry });
  closers.push(() => manager.closeAll());
  return manager.environmentFor('s');
}

/** Every marker still carried by a living process, after the end (a short wait: SIGKILLs are delivered asynchronously). */
async function leftovers(mark: Record<Escape, string>): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const escape of ESCAPES) {
    const alive = await survivorsOf(mark[escape], 3000);
    if (alive.length) out[escape] = alive;
  }
  return out;
}

const watched = (mark: Record<Escape, string>) => [mark.setsid, mark['double fork'], mark.start_new_session, mark['nohup &']];

describe.each(BACKENDS.filter((b) => b.runs))('nothing a cell starts outlives it ($name)', (backend) => {
  let home: string;
  let environment: Environment;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-leftover-home-'));
    environment = await environmentOn(backend.name, home);
    closers.push(() => environment.cleanup());
  }, 300_000);

  describe.each(MODES)('$mode', ({ kernels }) => {
    it.each(ENDS)('$end: no process of any escape is alive after it', async ({ end, after, status }) => {
      // The cleanup case ends its environment: it gets one of its own.
      const env = end === 'environment cleanup' ? await environmentOn(backend.name, home) : environment;
      const executor: DefaultCodeExecutor = createCodeExecutor({
        home,
        config: { code_execution: { session_kernels: kernels, timeout: end === 'timeout' ? TIMEOUT_S : 300, kill_grace: 1 } },
      });
      closers.push(() => executor.close());
      const mark = markers();
      const controller = new AbortController();
      const context = makeToolContext({ environment: env, home, signal: controller.signal, sessionId: `leftover-${end}` });
      const running = executor.execute({ sessionId: `leftover-${end}`, context, code: escapingCell(mark, after) });
      if (end === 'interrupt' || end === 'environment cleanup') {
        for (const m of watched(mark)) expect((await waitForProcess(m, 60_000)).length, `${m} never started`).toBeGreaterThan(0);
        if (end === 'interrupt') controller.abort('user sent a new message');
        // What /new does: the turn is aborted, the session's kernel and environment are closed.
        else await Promise.all([controller.abort('the session was reset'), executor.close(), env.cleanup()]);
      }
      const result = await running;
      if (end === 'normal end' || end === 'timeout') {
        // The escapes ran before the end: the cell saw its four sleepers and the terminal its own.
        expect(result.output).toContain(`ALIVE ${watched(mark).join(' ')}\n`);
        expect(result.output).toContain('TERMINAL UP');
      }
      if (end !== 'environment cleanup') expect(result.status).toBe(status);
      expect(await leftovers(mark)).toEqual({});
    }, 240_000);
  });
});

const fixture = fileURLToPath(new URL('./fixtures/leftover-gateway.mjs', import.meta.url));
const loader = fileURLToPath(new URL('./kernel/fixtures/register-ts.mjs', import.meta.url));

describe.each(BACKENDS.filter((b) => b.runs))('nothing a cell starts outlives a SIGKILLed gateway ($name)', (backend) => {
  it.each(MODES)('$mode: no process of any escape is alive after the gateway is SIGKILLed mid-cell', async ({ kernels }) => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-leftover-kill-'));
    const mark = markers();
    // Besides the escapes, a terminal() command still running when the gateway dies (on Docker only the container's lifeline ends it).
    const running = `hermes-leak-running-${mark.setsid.split('-').at(-1)}`;
    const after = [
      'import threading',
      `threading.Thread(target=lambda: terminal("python3 -c 'import time; time.sleep(300)' ${running}"), daemon=True).start()`,
      'time.sleep(600)',
    ].join('\n');
    // On ssh the far host is the test sshd on loopback: its processes show in this host's /proc too.
    const ssh = backend.name === 'ssh' ? { host: sshd!.host, port: sshd!.port, user: sshd!.user, key: sshd!.key, dir: sshd!.dir } : undefined;
    const spec = { backend: backend.name, home, kernels, image: TEST_IMAGE, code: escapingCell(mark, after), ssh };
    const gateway = execa(process.execPath, ['--import', loader, fixture, JSON.stringify(spec)], { reject: false });
    let exited = false;
    void gateway.finally(() => (exited = true));
    const seen: number[] = [];
    for (const m of [...watched(mark), running]) {
      const deadline = Date.now() + 90_000;
      while (!exited && Date.now() < deadline && processesWith(m).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      seen.push(processesWith(m).length);
    }
    gateway.kill('SIGKILL');
    const ended = await gateway;
    expect(seen.every((n) => n > 0), `the stand-in never ran the cell: ${String(ended.stderr)}`).toBe(true);
    expect(await leftovers(mark)).toEqual({});
    expect(await survivorsOf(running, 3000), 'the terminal() command running when the gateway died').toEqual([]);
  }, 240_000);
});
