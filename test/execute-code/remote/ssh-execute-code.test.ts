import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCodeExecutor, type DefaultCodeExecutor } from '../../../src/execute-code/index.js';
import { RemoteKernel, forgetSweeps } from '../../../src/execute-code/remote/index.js';
import type { SshEnvironment } from '../../../src/environments/ssh/index.js';
import { ToolRegistry, defineTool } from '../../../src/tools/index.js';
import { scriptTools } from '../../../src/tools/builtin/index.js';
import { makeToolContext } from '../../helpers/tool-context.js';
import { startSshd, sshdUnavailable, type TestSshd } from '../../helpers/sshd.js';
import { connectTo } from '../../environments/ssh/helpers.js';
import { alive } from '../helpers.js';
import { filesOnly, sixToolCallsScript } from './helpers.js';
import { readPid, waitForPid } from '../../helpers/processes.js';

const missing = process.env.CI === 'true' ? undefined : sshdUnavailable();
if (missing) console.warn(`remote execute_code tests cannot run here: ${missing}`);

describe.runIf(!missing)('execute_code over SSH without a stream (file transport)', () => {
  let sshd: TestSshd;
  let env: SshEnvironment;
  let work: string;
  let home: string;
  const seen: unknown[] = [];
  const echo = defineTool({
    name: 'web_search',
    description: 'records its arguments',
    args: z.object({ query: z.string() }).passthrough(),
    run: async (args) => {
      seen.push(args);
      return { echoed: args.query };
    },
  });
  const registry = new ToolRegistry([echo, ...scriptTools().filter((tool) => tool.name !== 'web_search')]);
  const executors: DefaultCodeExecutor[] = [];
  const executor = (kernels: boolean, extra: Record<string, number> = {}, direct = false) => {
    const made = createCodeExecutor({
      home, registry,
      config: { code_execution: { session_kernels: kernels, ...extra }, terminal: { ssh: { direct_channel: direct } } },
    });
    executors.push(made);
    return made;
  };
  /** The folders execute_code made on the backend (its TMPDIR is the test sshd's own). */
  const remoteFolders = () => readdirSync(sshd.tmp).filter((name) => /^hermes-(rexec|rkernel)-/.test(name));
  const context = (signal?: AbortSignal) => makeToolContext({ environment: filesOnly(env), home, signal });

  beforeAll(async () => {
    sshd = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'hermes-ssh-exec-'));
    home = mkdtempSync(join(tmpdir(), 'hermes-ssh-home-'));
    env = await connectTo(sshd, { cwd: work });
  });

  afterAll(async () => {
    await Promise.all(executors.map((made) => made.close()));
    await env?.cleanup();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('runs a script with several tool calls, in the remote working folder, and removes its folder', async () => {
    const before = remoteFolders();
    const result = await executor(false).execute({
      sessionId: 's1',
      context: context(),
      code: sixToolCallsScript('hello over ssh', 'echo from-terminal'),
    });
    expect(result.status).toBe('success');
    expect(result.tool_calls_made).toBe(6);
    const lines = result.output.trim().split('\n');
    expect(lines[0]).toBe(work);
    expect(lines[1]).toBe("['q0', 'q1', 'q2']");
    expect(lines[2]).toContain('hello over ssh');
    expect(lines[3]).toBe('from-terminal');
    expect(readFileSync(join(work, 'made.txt'), 'utf8')).toBe('hello over ssh');
    expect(remoteFolders()).toEqual(before);
  });

  it('keeps the token off every command line it builds, with and without the direct channel', async () => {
    for (const direct of [false, true]) {
      const before = env.commandLines.length;
      const result = await executor(false, {}, direct).execute({
        sessionId: 's2', context: context(),
        code: [
          'import os',
          'from hermes_tools import web_search',
          'assert web_search(query="x")["echoed"] == "x"',
          'print(open(os.environ["HERMES_RPC_DIR"] + "/token").read())',
          'print(os.environ.get("HERMES_RPC_TOKEN", "none"))',
        ].join('\n'),
      });
      expect(result.status).toBe('success');
      const [fileToken, socketToken] = result.output.trim().split('\n');
      expect(fileToken).toMatch(/^[0-9a-f]{48}$/);
      if (direct) expect(socketToken).toMatch(/^[0-9a-f]{48}$/);
      else expect(socketToken).toBe('none');
      const lines = env.commandLines.slice(before);
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) {
        expect(line.join(' ')).not.toContain(fileToken);
        if (direct) expect(line.join(' ')).not.toContain(socketToken);
      }
      expect(lines.some((line) => line.includes('forward'))).toBe(direct);
    }
  });

  it('serves tool calls over the forwarded socket (direct channel) and removes everything', async () => {
    const before = remoteFolders();
    const result = await executor(false, {}, true).execute({
      sessionId: 's8', context: context(),
      code: 'from hermes_tools import web_search\nprint([web_search(query=str(i))["echoed"] for i in range(5)])',
    });
    expect(result.status).toBe('success');
    expect(result.tool_calls_made).toBe(5);
    expect(result.output).toBe("['0', '1', '2', '3', '4']\n");
    expect(remoteFolders()).toEqual(before);
  });

  it('reports errors, stderr and the exit code like a local script', async () => {
    const result = await executor(false).execute({ sessionId: 's3', context: context(), code: 'import sys\nprint("before")\nsys.stderr.write("oops\\n")\nraise ValueError("bad")' });
    expect(result.status).toBe('error');
    expect(result.exit_code).toBe(1);
    expect(result.error).toContain('ValueError: bad');
    expect(result.output).toContain('before');
  });

  it('applies the call budget remotely', async () => {
    const result = await executor(false, { max_tool_calls: 2 }).execute({
      sessionId: 's4', context: context(),
      code: 'from hermes_tools import web_search\nfor i in range(3): print(web_search(query=str(i)))',
    });
    expect(result.tool_calls_made).toBe(2);
    expect(result.output).toContain('Tool call limit reached (2)');
  });

  it('kills the remote script on timeout and on interrupt, and leaves no folder', async () => {
    const before = remoteFolders();
    const pidFile = join(work, 'script.pid');
    const code = `import os, time\nopen(${JSON.stringify(pidFile)}, "w").write(str(os.getpid()))\ntime.sleep(300)`;
    const timedOut = await executor(false, { timeout: 2 }).execute({ sessionId: 's5', context: context(), code });
    expect(timedOut.status).toBe('timeout');
    const firstPid = readPid(pidFile);
    for (let i = 0; i < 100 && alive(firstPid); i++) await sleep(50);
    expect(alive(firstPid)).toBe(false);

    rmSync(pidFile);
    const controller = new AbortController();
    const running = executor(false).execute({ sessionId: 's6', context: context(controller.signal), code });
    await waitForPid(pidFile);
    controller.abort('user sent a new message');
    const interrupted = await running;
    expect(interrupted.status).toBe('interrupted');
    expect(interrupted.output).toContain('[execution interrupted — user sent a new message]');
    const secondPid = readPid(pidFile);
    for (let i = 0; i < 100 && alive(secondPid); i++) await sleep(50);
    expect(alive(secondPid)).toBe(false);
    expect(remoteFolders()).toEqual(before);
  });

  it('keeps state between calls in a remote session kernel', async () => {
    const before = remoteFolders();
    const made = executor(true);
    const first = await made.execute({ sessionId: 'k1', context: context(), code: 'from hermes_tools import web_search\nx = web_search(query="kept")["echoed"]\nprint("set")' });
    expect(first.status).toBe('success');
    expect(first.kernel).toMatchObject({ mode: 'session', reused: false, execution_count: 1 });
    const kernelFolders = remoteFolders().filter((name) => !before.includes(name));
    expect(kernelFolders).toEqual([expect.stringMatching(/^hermes-rkernel-/)]);
    const second = await made.execute({ sessionId: 'k1', context: context(), code: 'print(x * 2)' });
    expect(second.output).toBe('keptkept\n');
    expect(second.kernel).toMatchObject({ mode: 'session', reused: true, execution_count: 2 });
    const failing = await made.execute({ sessionId: 'k1', context: context(), code: 'raise KeyError("k")' });
    expect(failing.status).toBe('error');
    expect(failing.output).toContain('KeyError');
    await made.resetSession('k1');
    expect(remoteFolders()).toEqual(before);
  });

  it('kills a remote kernel cell on timeout and starts a fresh kernel next time', async () => {
    const made = executor(true, { timeout: 2 });
    await made.execute({ sessionId: 'k2', context: context(), code: 'y = 1' });
    const slow = await made.execute({ sessionId: 'k2', context: context(), code: 'import time\ntime.sleep(300)' });
    expect(slow.status).toBe('timeout');
    const after = await made.execute({ sessionId: 'k2', context: context(), code: 'print("y" in dir())' });
    expect(after.output).toBe('False\n');
    expect(after.kernel).toMatchObject({ mode: 'session', state_reset: true });
    await made.resetSession('k2');
  });

  it('a remote kernel removes its folder and exits by itself after the idle timeout', async () => {
    const kernel = await RemoteKernel.start({
      environment: env, stub: '', cwd: work, env: () => ({}), idleSeconds: 1, graceMs: 500, maxOutputBytes: 50_000,
      handler: async () => ({}),
    });
    expect(alive(kernel.pid)).toBe(true);
    expect(existsSync(kernel.dir)).toBe(true);
    for (let i = 0; i < 100 && (alive(kernel.pid) || existsSync(kernel.dir)); i++) await sleep(50);
    expect(alive(kernel.pid)).toBe(false);
    expect(existsSync(kernel.dir)).toBe(false);
  });

  it('reports a remote kernel killed from outside during a cell as died, and starts afresh', async () => {
    const made = executor(true);
    const pidFile = join(work, 'kernel.pid');
    const running = made.execute({
      sessionId: 'k4', context: context(),
      code: `import os, time\nopen(${JSON.stringify(pidFile)}, "w").write(str(os.getpid()))\ntime.sleep(300)`,
    });
    process.kill(await waitForPid(pidFile), 'SIGKILL');
    const result = await running;
    expect(result.status).toBe('error');
    expect(result.error).toMatch(/The session kernel died while running the cell/);
    const next = await made.execute({ sessionId: 'k4', context: context(), code: 'print("fresh")' });
    expect(next.output).toBe('fresh\n');
    expect(next.kernel).toMatchObject({ mode: 'session', state_reset: true });
    await made.resetSession('k4');
  });

  it('falls back to a one-shot script with a note when the remote kernel cannot start', async () => {
    const made = executor(true);
    // A working folder that does not exist: the kernel cannot start there.
    const broken = Object.create(filesOnly(env), { cwd: { value: '/no/such/folder' } }) as SshEnvironment;
    const result = await made.execute({
      sessionId: 'k3',
      context: makeToolContext({ environment: broken, home }),
      code: 'print("ran")',
      // The one-shot script runs in its own folder (strict) so it can run at all.
    });
    expect(result.kernel).toMatchObject({ mode: 'per-call' });
    expect((result.kernel as { note: string }).note).toMatch(/^session kernel unavailable: /);
  });

  it('sweeps at the next start what a killed gateway left, but not a live kernel\'s folder nor a running script\'s', async () => {
    const old = (path: string) => utimesSync(path, new Date(Date.now() - 300_000), new Date(Date.now() - 300_000));
    const kernels = executor(true);
    const live = await kernels.execute({ sessionId: 'sw', context: context(), code: 'import os\nprint(os.environ["HERMES_RPC_DIR"])' });
    const liveDir = live.output.trim();
    expect(liveDir).toMatch(/hermes-rkernel-/);
    old(liveDir);
    for (const name of ['hermes-rexec-Stale1', 'hermes-rkernel-Stale2']) {
      mkdirSync(join(sshd.tmp, name, 'rpc'), { recursive: true });
      writeFileSync(join(sshd.tmp, name, '.lock'), '');
      old(join(sshd.tmp, name));
    }
    mkdirSync(join(sshd.tmp, 'hermes-rexec-Young3'));
    // A one-shot script running while the sweep happens: its folder is old but locked.
    const before = remoteFolders();
    const slow = executor(false).execute({
      sessionId: 'sw2', context: context(),
      code: 'import time\nfrom hermes_tools import web_search\ntime.sleep(2)\nprint(web_search(query="survived")["echoed"])',
    });
    let running: string | undefined;
    for (let i = 0; i < 200 && !running; i++, await sleep(25)) {
      running = remoteFolders().find((name) => !before.includes(name) && existsSync(join(sshd.tmp, name, '.lock')));
    }
    expect(running).toBeDefined();
    old(join(sshd.tmp, running!));
    forgetSweeps();
    expect((await executor(false).execute({ sessionId: 'sw3', context: context(), code: 'print(1)' })).output).toBe('1\n');
    expect(remoteFolders()).not.toContain('hermes-rexec-Stale1');
    expect(remoteFolders()).not.toContain('hermes-rkernel-Stale2');
    expect(remoteFolders()).toEqual(expect.arrayContaining(['hermes-rexec-Young3', liveDir.split('/').at(-1)]));
    expect((await slow).output).toBe('survived\n');
    expect((await kernels.execute({ sessionId: 'sw', context: context(), code: 'print("alive")' })).kernel).toMatchObject({ reused: true });
    rmSync(join(sshd.tmp, 'hermes-rexec-Young3'), { recursive: true });
    await kernels.resetSession('sw');
  });

  it('says python3 is missing on the backend and names it', async () => {
    const noPython = Object.create(filesOnly(env), {
      execute: { value: (command: string, options: object) => env.execute(command.replace('command -v python3', 'command -v python3-not-here'), options) },
    }) as SshEnvironment;
    const result = await executor(false).execute({ sessionId: 's7', context: makeToolContext({ environment: noPython, home }), code: 'print(1)' });
    expect(result.status).toBe('error');
    expect(result.error).toMatch(/needs python3 on the ssh backend \(root@127\.0\.0\.1:\d+\)/);
  });
});
