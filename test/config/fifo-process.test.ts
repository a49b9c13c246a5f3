import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCli } from '../helpers/hermes-process.js';

/*
 * `hermes gateway` as a real process (the built CLI: `npm run build` first) against a
 * config.yaml or .env that a local script replaced by a FIFO (`os.mkfifo`): the start ends at
 * once with one line naming the file, and a FIFO swapped in while the gateway runs is refused
 * by the hot reload while the gateway keeps answering (its web chat's status API).
 */
const built = existsSync(builtCli);
const runnable = built || process.env.CI === 'true';
if (!runnable) console.log('config FIFO process tests skipped: dist/ is not built (npm run build)');

let child: ChildProcess | undefined;
let home: string | undefined;

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
  const proc = spawn(process.execPath, [builtCli, '--home', home!, 'gateway'], { cwd: home, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
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

describe.runIf(runnable)('hermes gateway with config files that are not regular files', () => {
  for (const name of ['config.yaml', '.env']) {
    it(`a FIFO as ${name} at start: the gateway exits within seconds with one line naming the file`, async () => {
      home = mkdtempSync(join(tmpdir(), 'hermes-fifo-start-'));
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
    home = mkdtempSync(join(tmpdir(), 'hermes-fifo-run-'));
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
      const response = await within(3000, 'GET /api/status', fetch(`${base}/api/status`, { headers: { 'x-hermes-token': token } }));
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    expect(JSON.stringify(await status())).toContain('first-model');

    mkfifo(config);
    mkfifo(join(home, '.env'));
    // The watch reloads 100 ms after the change settles; give it time, then ask.
    await new Promise((resolve) => setTimeout(resolve, 600));
    for (let i = 0; i < 3; i += 1) expect(JSON.stringify(await status())).toContain('first-model');
    const logFile = join(home, 'logs', 'agent.log');
    const log = spawnSync('cat', [logFile], { encoding: 'utf8' }).stdout;
    expect(log).toContain(`${config}: is a FIFO (named pipe)`);
    expect(log).toContain(`${join(home, '.env')}: is a FIFO (named pipe)`);

    // A real file again: the change applies.
    rmSync(config);
    writeFileSync(config, settings('second-model'));
    await within(5000, 'the reload of a real config.yaml', (async () => {
      while (!run.output().includes('applied model.name')) await new Promise((resolve) => setTimeout(resolve, 50));
    })());
    expect(JSON.stringify(await status())).toContain('second-model');
  }, 60_000);
});
