import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtCli } from '../helpers/hermes-process.js';

/*
 * `hermes gateway` as a real process (the built CLI: `npm run build` first) against a
 * config.yaml or .env that a local script replaced by a FIFO (`os.mkfifo`): the start ends at
 * once with one line naming the file, and a FIFO swapped in while the gateway runs is refused
 * by the hot reload while the gateway keeps answering (its web chat's status API). As root,
 * each case runs again with the gateway as an unprivileged user (setpriv to nobody), its
 * HERMES_HOME that user's.
 */
const built = existsSync(builtCli);
const runnable = built || process.env.CI === 'true';
if (!runnable) console.log('config FIFO process tests skipped: dist/ is not built (npm run build)');

let child: ChildProcess | undefined;
let home: string | undefined;

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
/** Who runs the gateway: this user, and as root also nobody. */
const runners: Array<{ who: string; uid: number | undefined }> = asRoot
  ? [{ who: 'root', uid: undefined }, { who: 'a plain user (nobody)', uid: NOBODY }]
  : [{ who: 'this user', uid: undefined }];
let runAs: number | undefined;

/**
 * Where HERMES_HOME is made: the run's own TMPDIR (0700, root's) for this user; for nobody the
 * system's temp folder above it, which every user can reach.
 */
const tempRoot = () => (runAs === undefined ? tmpdir() : dirname(tmpdir()));

/** Makes HERMES_HOME and what is in it the runner's (a no-op when it is this process's user). */
function own(): void {
  if (runAs === undefined || !home) return;
  const walk = (dir: string) => {
    chownSync(dir, runAs!, runAs!);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else chownSync(path, runAs!, runAs!);
    }
  };
  walk(home);
}

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  if (home) rmSync(home, { recursive: true, force: true });
  child = home = undefined;
});

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HERMES_HOME: '' };
  for (const name of Object.keys(env)) {
    if (/^(SLACK|DISCORD|TELEGRAM)_/.test(name) || /_API_KEY$/.test(name) || name === 'HERMES_CONFIG' || name === 'GATEWAY_ALLOW_ALL_USERS') delete env[name];
  }
  return env;
}

function startGateway(): { output: () => string; exited: Promise<number | null> } {
  let output = '';
  own();
  const args = [builtCli, '--home', home!, 'gateway'];
  const env = { ...cleanEnv(), HOME: home! };
  const proc =
    runAs === undefined
      ? spawn(process.execPath, args, { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('setpriv', [`--reuid=${runAs}`, `--regid=${runAs}`, '--clear-groups', '--', process.execPath, ...args], { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  proc.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child = proc;
  return { output: () => output, exited: new Promise((resolve) => proc.once('exit', (code) => resolve(code))) };
}

/** Replaces `file` by a FIFO (a reader that opened it would wait for a writer: the test would time out). */
function mkfifo(file: string): void {
  rmSync(file, { force: true });
  expect(spawnSync('mkfifo', [file]).status).toBe(0);
}

async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe.runIf(runnable).each(runners)('hermes gateway run by $who with config files that are not regular files', ({ uid }) => {
  beforeEach(() => {
    runAs = uid;
  });
  for (const name of ['config.yaml', '.env']) {
    it(`a FIFO as ${name} at start: the gateway exits within seconds with one line naming the file`, async () => {
      home = mkdtempSync(join(tempRoot(), 'hermes-fifo-start-'));
      const file = join(home, name);
      mkfifo(file);
      const started = Date.now();
      const run = startGateway();
      const code = await within(10_000, 'hermes gateway with a FIFO', run.exited);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(code).toBe(1);
      expect(run.output().trim().split('\n')).toEqual([
        `hermes: ${file}: is a FIFO (named pipe), not a regular file; it was not read (replace it with a plain file, e.g. \`rm ${file}\` and run hermes setup or hermes config set)`,
      ]);
    }, 20_000);
  }

  it('config.yaml and .env swapped for FIFOs while running: the status API keeps answering, the log names the files, and a real save after them applies', async () => {
    home = mkdtempSync(join(tempRoot(), 'hermes-fifo-run-'));
    const work = join(home, 'work');
    mkdirSync(work);
    const config = join(home, 'config.yaml');
    const settings = (model: string) =>
      `model:\n  name: ${model}\n  base_url: http://127.0.0.1:9/v1\nplatforms:\n  web:\n    port: 0\nterminal:\n  cwd: ${JSON.stringify(work)}\n`;
    writeFileSync(config, settings('first-model'));
    writeFileSync(join(home, '.env'), "HERMES_FIFO_TEST_KEY='x'\n");
    const run = startGateway();
    let url = '';
    await within(30_000, 'the web chat address', (async () => {
      for (;;) {
        url = /web chat: (http:\/\/127\.0\.0\.1:\d+)\/\?token=([0-9a-f]+)/.exec(run.output())?.[0] ?? '';
        if (url || child?.exitCode !== null) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })());
    const match = /web chat: (http:\/\/127\.0\.0\.1:\d+)\/\?token=([0-9a-f]+)/.exec(run.output());
    if (!match) throw new Error(`no web chat address:\n${run.output()}`);
    const [, base, token] = match;
    const status = async () => {
      const response = await within(5000, 'GET /api/status', fetch(`${base}/api/status`, { headers: { 'x-hermes-token': token } }));
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    expect(JSON.stringify(await status())).toContain('first-model');

    mkfifo(config);
    mkfifo(join(home, '.env'));
    own();
    // The watch reloads 100 ms after the change settles: wait until the log says it refused both,
    // asking the status API all the while (a reload stuck on a FIFO would leave it unanswered).
    const logFile = join(home, 'logs', 'agent.log');
    const log = () => spawnSync('cat', [logFile], { encoding: 'utf8' }).stdout;
    await within(20_000, 'the reload refusing both FIFOs', (async () => {
      while (!(log().includes(`${config}: is a FIFO (named pipe)`) && log().includes(`${join(home!, '.env')}: is a FIFO (named pipe)`))) {
        expect(JSON.stringify(await status())).toContain('first-model');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })());
    for (let i = 0; i < 3; i += 1) expect(JSON.stringify(await status())).toContain('first-model');
    // The gateway is still there, as the user it was started as.
    expect(child?.exitCode).toBeNull();
    const uid = spawnSync('ps', ['-o', 'uid=', '-p', String(child!.pid)], { encoding: 'utf8' }).stdout.trim();
    expect(uid).toBe(String(runAs ?? process.getuid?.()));

    // An editor's truncate before it writes: the model stays.
    rmSync(config);
    writeFileSync(config, '');
    own();
    await within(20_000, 'the reload of an empty config.yaml', (async () => {
      while (!log().includes(`${config} is empty; the running settings stay`)) await new Promise((resolve) => setTimeout(resolve, 100));
    })());
    expect(JSON.stringify(await status())).toContain('first-model');
    // A real file again: the change applies.
    writeFileSync(config, settings('second-model'));
    await within(20_000, 'the reload of a real config.yaml', (async () => {
      while (!run.output().includes('applied model.name')) await new Promise((resolve) => setTimeout(resolve, 50));
    })());
    expect(JSON.stringify(await status())).toContain('second-model');
  }, 90_000);
});
