import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { validateConfig, type ConfigOverrides } from '../../../src/config/index.js';
import type { Environment } from '../../../src/environments/index.js';
import { RemoteCodeRunner, forgetSweeps } from '../../../src/execute-code/remote/index.js';
import { renderStub } from '../../../src/execute-code/index.js';
import { silentLogger } from '../../../src/shared/index.js';
import { SCRIPT_TOOL_SIGNATURES, scriptTools } from '../../../src/tools/builtin/index.js';
import { ToolRegistry, defineTool } from '../../../src/tools/index.js';
import type { ExecuteCodeResult } from '../../../src/execute-code/index.js';
import { makeToolContext, tempDir } from '../../helpers/tool-context.js';

/*
 * What execute_code over a backend's stream channel must show, run against each backend that
 * offers one by its own test file (SSH, Docker, a plugin's shape).
 */

export interface StreamBackend {
  env: Environment;
  /** The client command lines the environment built so far (each is one SSH session or one exec). */
  commandLines(): readonly string[][];
  /** Runs a check on the backend; its output. */
  sh(command: string): Promise<string>;
  /** The backend's temp folder as its commands see it (where the private folders go). */
  tmp: string;
  home: string;
  /** What the lifeline fixture needs to reach the same backend (see fixtures/stream-gateway.mjs). */
  fixture?: Record<string, unknown>;
}

const fixture = fileURLToPath(new URL('./fixtures/stream-gateway.mjs', import.meta.url));
const loader = fileURLToPath(new URL('../kernel/fixtures/register-ts.mjs', import.meta.url));

/** Resolves `waitFor` from a tool call; lets a test hold a script at a tool call until it saw something. */
function gatedSearch(wait: () => Promise<unknown>) {
  return defineTool({
    name: 'web_search',
    description: 'echoes its query; "wait" waits for the test',
    args: z.object({ query: z.string() }).passthrough(),
    run: async (args) => (args.query === 'wait' ? { waited: await wait() } : { echoed: args.query }),
  });
}

/** A RemoteCodeRunner (the executor's remote path) with a live stdout hook, on `backend`. */
export function remoteRunner(backend: StreamBackend, options: { kernels: boolean; config?: ConfigOverrides; onStdout?(chunk: Buffer): void; wait?: () => Promise<unknown> }) {
  const { config } = validateConfig({ ...options.config, code_execution: { session_kernels: options.kernels, ...options.config?.code_execution } }, 'test');
  const registry = new ToolRegistry([gatedSearch(options.wait ?? (async () => 'nothing to wait for')), ...scriptTools().filter((tool) => tool.name !== 'web_search')]);
  const runner = new RemoteCodeRunner({ config, registry, logger: silentLogger(), spillDir: tempDir('hermes-spill-'), onStdout: options.onStdout });
  const stub = renderStub(['web_search', 'terminal'].map((name) => ({ name, ...SCRIPT_TOOL_SIGNATURES[name as 'web_search'] })));
  const run = (code: string, extra: { owner?: string; signal?: AbortSignal; reset?: boolean } = {}): Promise<ExecuteCodeResult> =>
    runner.execute({
      owner: extra.owner ?? 'stream-test',
      code,
      reset: extra.reset ?? false,
      stub,
      allowed: new Set(['web_search', 'terminal']),
      context: makeToolContext({ environment: backend.env, home: backend.home, signal: extra.signal }),
      passthrough: [],
      startedMs: performance.now(),
    });
  return { runner, run };
}

/** Collects stdout chunks; `line(re)` waits for the first line matching `re`. */
function stdoutWatch() {
  let text = '';
  const waiters: { re: RegExp; resolve(line: string): void }[] = [];
  const onStdout = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const waiter of [...waiters]) {
      const line = text.split('\n').find((candidate) => waiter.re.test(candidate));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  const line = (re: RegExp) =>
    new Promise<string>((resolve) => {
      const found = text.split('\n').find((candidate) => re.test(candidate));
      if (found !== undefined) resolve(found);
      else waiters.push({ re, resolve });
    });
  return { onStdout, line, text: () => text };
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * Whether the group `pgid` has a live member on the backend, asked once (no waiting). Zombies
 * count as gone: `kill -0` would see them, and a PID 1 that does not reap keeps them forever.
 */
async function groupAlive(backend: StreamBackend, pgid: number): Promise<boolean> {
  return (await backend.sh(`for p in /proc/[0-9]*; do s=$(cat $p/stat 2>/dev/null) || continue; s=\${s##*) }; set -- $s; [ "$1" != Z ] && [ "$3" = ${pgid} ] && echo alive; done; echo checked`)).includes('alive');
}

/** Whether `pid` lives on the backend (zombies count as gone). */
async function pidAlive(backend: StreamBackend, pid: number): Promise<boolean> {
  return (await backend.sh(`s=$(cat /proc/${pid}/stat 2>/dev/null) && s=\${s##*) } && set -- $s && [ "$1" != Z ] && echo alive; echo checked`)).includes('alive');
}

async function waitUntil(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

const SPAWN_AND_WAIT = [
  'import json, os, subprocess, time',
  'child = subprocess.Popen(["sleep", "300"])',
  'print(json.dumps({"pid": os.getpid(), "pgid": os.getpgrp(), "child": child.pid}), flush=True)',
  'time.sleep(300)',
].join('\n');

export function streamCases(get: () => StreamBackend, timeoutMs = 60_000): void {
  it('serves a one-shot script\'s tool calls over one stream: one client process, no request files, no polling', async () => {
    const backend = get();
    const { run } = remoteRunner(backend, { kernels: false });
    const before = backend.commandLines().length;
    const result = await run(
      [
        'import os, threading',
        'from hermes_tools import web_search',
        'folder = os.path.dirname(os.environ["HERMES_RPC_SOCKET"])',
        'seen = set()',
        'stop = threading.Event()',
        'def scan():',
        '    while not stop.is_set():',
        '        for root, dirs, files in os.walk(folder):',
        '            seen.update(name for name in dirs + files if name.startswith(("req_", "res_", "rpc")) and name != "rpc.sock")',
        'scanner = threading.Thread(target=scan)',
        'scanner.start()',
        'answers = []',
        'def calls(prefix):',
        '    for i in range(10):',
        '        answers.append(web_search(query="%s%d" % (prefix, i))["echoed"])',
        'threads = [threading.Thread(target=calls, args=(p,)) for p in "ab"]',
        '[t.start() for t in threads]',
        '[t.join() for t in threads]',
        'stop.set()',
        'scanner.join()',
        'print(len(answers), sorted(answers)[:2], sorted(seen), os.environ.get("HERMES_RPC_DIR"))',
      ].join('\n'),
    );
    const lines = backend.commandLines().slice(before);
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', tool_calls_made: 20 });
    expect(result.output.trim()).toBe("20 ['a0', 'a1'] [] None");
    expect(lines).toHaveLength(1);
  }, timeoutMs);

  it('delivers a one-shot script\'s stdout while the script still runs', async () => {
    const backend = get();
    const watch = stdoutWatch();
    // The script's tool call is answered only once its first line reached the gateway.
    const { run } = remoteRunner(backend, {
      kernels: false,
      onStdout: watch.onStdout,
      wait: () => Promise.race([watch.line(/^first$/).then(() => 'seen'), sleep(20_000).then(() => 'not seen')]),
    });
    const result = await run('from hermes_tools import web_search\nprint("first", flush=True)\nprint(web_search(query="wait")["waited"])');
    expect(result.output).toBe('first\nseen\n');
  }, timeoutMs);

  it('delivers a kernel cell\'s stdout while the cell still runs, and keeps state between cells', async () => {
    const backend = get();
    const watch = stdoutWatch();
    const { runner, run } = remoteRunner(backend, {
      kernels: true,
      onStdout: watch.onStdout,
      wait: () => Promise.race([watch.line(/^cell says hi$/).then(() => 'seen'), sleep(20_000).then(() => 'not seen')]),
    });
    try {
      const before = backend.commandLines().length;
      const first = await run('from hermes_tools import web_search\nx = 41\nprint("cell says hi", flush=True)\nprint(web_search(query="wait")["waited"])');
      expect(first.output).toBe('cell says hi\nseen\n');
      const second = await run('x += 1\nprint(x, web_search(query="again")["echoed"])');
      const third = await run('print(x)');
      expect(second.output).toBe('42 again\n');
      expect(third.output).toBe('42\n');
      expect(third.kernel).toMatchObject({ mode: 'session', reused: true, execution_count: 3 });
      // Three cells, one stream: no command per cell, none per poll.
      expect(backend.commandLines().slice(before)).toHaveLength(1);
    } finally {
      await runner.close();
    }
  }, timeoutMs);

  it('a script printing fake frames cannot forge an RPC answer or an exit', async () => {
    const backend = get();
    const { run } = remoteRunner(backend, { kernels: false });
    const result = await run(
      [
        'import json, os, struct, sys',
        'from hermes_tools import web_search',
        'def frame(kind, payload):',
        '    body = kind + payload',
        '    return struct.pack(">I", len(body)) + body',
        'answer = json.dumps({"id": 1, "result": {"echoed": "forged"}}).encode() + b"\\n"',
        'fake = frame(b"N", struct.pack(">I", 1)) + frame(b"D", struct.pack(">I", 1) + answer) + frame(b"X", b\'{"code": 0, "signal": null}\')',
        'for fd in (1, 2):',
        '    os.write(fd, fake)',
        'print("answer=" + web_search(query="real")["echoed"], flush=True)',
        'os.write(1, fake)',
        'print("after the fake exit", flush=True)',
        'sys.exit(3)',
      ].join('\n'),
    );
    expect(result.exit_code).toBe(3);
    expect(result.status).toBe('error');
    expect(result.output).toContain('answer=real');
    expect(result.output).not.toContain('answer=forged');
    expect(result.output).toContain('after the fake exit');
    expect(result.tool_calls_made).toBe(1);
  }, timeoutMs);

  it('a new message kills the one-shot script\'s whole process group (a child too), in at most two client processes', async () => {
    const backend = get();
    const watch = stdoutWatch();
    const { run } = remoteRunner(backend, { kernels: false, onStdout: watch.onStdout });
    const controller = new AbortController();
    const before = backend.commandLines().length;
    const running = run(SPAWN_AND_WAIT, { signal: controller.signal });
    const { pgid, child } = JSON.parse(await watch.line(/^\{/)) as { pid: number; pgid: number; child: number };
    controller.abort('user sent a new message');
    const result = await running;
    const lines = backend.commandLines().slice(before);
    expect(result.status).toBe('interrupted');
    expect(result.output).toContain('[execution interrupted — user sent a new message]');
    // Asked once, right after the result: the result waits for the group to be gone.
    expect(await groupAlive(backend, pgid)).toBe(false);
    expect(await pidAlive(backend, child)).toBe(false);
    expect(lines.length).toBeLessThanOrEqual(2);
  }, timeoutMs);

  it('a script past code_execution.timeout is reported as a timeout and its group is gone', async () => {
    const backend = get();
    const watch = stdoutWatch();
    const { run } = remoteRunner(backend, { kernels: false, onStdout: watch.onStdout, config: { code_execution: { timeout: 2 } } });
    const running = run(SPAWN_AND_WAIT);
    const { pgid } = JSON.parse(await watch.line(/^\{/)) as { pgid: number };
    const result = await running;
    expect(result.status).toBe('timeout');
    expect(result.error).toBe('Script timed out after 2s and was killed.');
    expect(await groupAlive(backend, pgid)).toBe(false);
  }, timeoutMs);

  it('a new message interrupts a kernel cell: its group is gone when the result returns, and the next cell starts fresh', async () => {
    const backend = get();
    const watch = stdoutWatch();
    const { runner, run } = remoteRunner(backend, { kernels: true, onStdout: watch.onStdout });
    try {
      await run('kept = 1', { owner: 'interrupt' });
      const controller = new AbortController();
      const running = run(SPAWN_AND_WAIT, { owner: 'interrupt', signal: controller.signal });
      const { pgid, pid } = JSON.parse(await watch.line(/^\{/)) as { pid: number; pgid: number };
      expect(pgid).toBe(pid); // the kernel leads its group
      controller.abort('user sent a new message');
      const result = await running;
      expect(result.status).toBe('interrupted');
      expect(await groupAlive(backend, pgid)).toBe(false);
      const next = await run('print("kept" in dir())', { owner: 'interrupt' });
      expect(next.output).toBe('False\n');
      expect(next.kernel).toMatchObject({ mode: 'session', state_reset: true });
    } finally {
      await runner.close();
    }
  }, timeoutMs);

  it('a session kernel dies with its gateway: SIGKILL of the gateway process ends the kernel\'s group and removes its folder', async () => {
    const backend = get();
    if (!backend.fixture) throw new Error('this backend gives no fixture spec');
    const gateway = spawn(process.execPath, ['--import', loader, fixture, JSON.stringify({ ...backend.fixture, home: backend.home })], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    gateway.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    gateway.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const exited = once(gateway, 'exit');
    await new Promise<void>((resolve, reject) => {
      gateway.stdout.on('data', () => out.includes('\n') && resolve());
      gateway.once('exit', (code) => reject(new Error(`the gateway stand-in exited early (${code}): ${out}${err}`)));
    });
    const info = JSON.parse(out) as { kernel: number; pgid: number; child: number; dir: string };
    expect(info.pgid).toBe(info.kernel);
    expect(await groupAlive(backend, info.pgid)).toBe(true);
    expect(await backend.sh(`[ -d ${quote(info.dir)} ] && echo there || echo missing`)).toContain('there');
    gateway.kill('SIGKILL');
    await exited;
    expect(await waitUntil(async () => !(await groupAlive(backend, info.pgid)), 10_000)).toBe(true);
    expect(await pidAlive(backend, info.child)).toBe(false);
    expect(await waitUntil(async () => (await backend.sh(`[ -d ${quote(info.dir)} ] && echo there || echo missing`)).includes('missing'), 5000)).toBe(true);
  }, Math.max(timeoutMs, 120_000));

  it('sweeps at the next start the folders a killed gateway left: old and unheld ones only', async () => {
    const backend = get();
    const { runner, run } = remoteRunner(backend, { kernels: true });
    try {
      // A live kernel whose folder is old: held by its runner's lock, so it stays.
      const live = await run('import os\nprint(os.path.dirname(os.environ["HERMES_RPC_SOCKET"]))', { owner: 'holder' });
      const liveDir = live.output.trim();
      const t = backend.tmp;
      await backend.sh(
        [
          `mkdir -p ${t}/hermes-rexec-StaleOne1/rpc ${t}/hermes-rkernel-StaleTwo2 ${t}/hermes-rexec-YoungOne3 ${t}/hermes-other-Keep4`,
          `: > ${t}/hermes-rkernel-StaleTwo2/.lock`,
          `touch -d '-5 minutes' ${t}/hermes-rexec-StaleOne1 ${t}/hermes-rkernel-StaleTwo2 ${t}/hermes-other-Keep4 ${quote(liveDir)}`,
        ].join('; '),
      );
      forgetSweeps(); // as after a restart: this process has swept nothing yet
      const { run: oneShot } = remoteRunner(backend, { kernels: false });
      expect((await oneShot('print("swept")')).output).toBe('swept\n');
      const left = await backend.sh(`ls -A ${t}`);
      expect(left).not.toContain('hermes-rexec-StaleOne1');
      expect(left).not.toContain('hermes-rkernel-StaleTwo2');
      expect(left).toContain('hermes-rexec-YoungOne3');
      expect(left).toContain('hermes-other-Keep4');
      expect(left).toContain(liveDir.split('/').at(-1));
      expect((await run('print("still alive")', { owner: 'holder' })).kernel).toMatchObject({ mode: 'session', reused: true });
      await backend.sh(`rm -rf ${t}/hermes-rexec-YoungOne3 ${t}/hermes-other-Keep4`);
    } finally {
      await runner.close();
    }
  }, timeoutMs);
}
