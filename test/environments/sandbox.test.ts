import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import {
  EnvironmentManager, findExecutable, loadProviderRegistry, type Environment,
} from '../../src/environments/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import { testSetup } from './helpers.js';
import { processesWith, survivorsOf } from '../helpers/processes.js';

const hasBwrap = process.platform === 'linux' && findExecutable('bwrap') !== undefined;
const hasPython = findExecutable('python3') !== undefined;
if (!hasBwrap && process.env.CI !== 'true') console.log('sandbox tests skipped: bubblewrap (bwrap) is not installed');

const managers: EnvironmentManager[] = [];
afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.closeAll()));
});

async function sandbox(overrides: ConfigOverrides = {}, session = 'session-1') {
  const setup = testSetup({ ...overrides, terminal: { backend: 'sandbox', ...overrides.terminal } });
  const { registry } = await loadProviderRegistry(setup);
  const manager = new EnvironmentManager({ ...setup, registry });
  managers.push(manager);
  return { ...setup, manager, environment: await manager.environmentFor(session) };
}

function listen(server: Server, where: number | string): Promise<void> {
  return new Promise((resolve) => server.listen(where, resolve));
}

describe.runIf(hasBwrap || process.env.CI === 'true')('sandbox backend (real bubblewrap)', () => {
  it('runs commands in a per-session workspace under HERMES_HOME/sandboxes, which is writable', async () => {
    const { environment, paths } = await sandbox({ terminal: { container_persistent: false } }, 'slack:T1:C1:1700.1');
    const workspace = join(paths.sandboxes, 'slack_T1_C1_1700.1');
    expect(environment.cwd).toBe(workspace);
    const result = await environment.execute('pwd; echo hello > note.txt && cat note.txt; hostname');
    expect(result).toMatchObject({ exit_code: 0, output: `${workspace}\nhello\nhermes-sandbox\n` });
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('hello\n');
  });

  it('leaves host files outside the workspace unwritable', async () => {
    // Not under /tmp: the sandbox has a private /tmp, where host paths would simply not exist.
    const outside = mkdtempSync('/var/tmp/hermes-outside-');
    writeFileSync(join(outside, 'precious.txt'), 'original\n');
    const elsewhere = join(outside, 'other.txt');
    writeFileSync(elsewhere, 'keep me\n');
    const before = readFileSync(elsewhere, 'utf8');
    const { environment } = await sandbox();
    const result = await environment.execute(
      `echo changed > ${outside}/precious.txt; echo rc=$?; echo x >> ${elsewhere}; echo rc=$?; touch /usr/hermes-probe; echo rc=$?; rm -f ${elsewhere}; echo rc=$?`,
    );
    // /var is not part of the view at all; /usr is, read-only.
    expect(result.output.match(/rc=0/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(result.output).toContain('No such file or directory');
    expect(result.output).toContain('Read-only file system');
    expect(readFileSync(join(outside, 'precious.txt'), 'utf8')).toBe('original\n');
    expect(readFileSync(elsewhere, 'utf8')).toBe(before);
    expect(existsSync('/usr/hermes-probe')).toBe(false);
    // The file tools' fast path refuses the same writes.
    await expect(environment.writeFile!('/etc/hermes-probe', 'x')).rejects.toMatchObject({ code: 'EROFS' });
    expect(existsSync('/etc/hermes-probe')).toBe(false);
    await environment.writeFile!('from-tool.txt', 'ok');
    expect((await environment.execute('cat from-tool.txt')).output).toBe('ok');
  });

  it('gives every session a workspace of its own, kept across release while container_persistent is true', async () => {
    const { environment, manager, paths } = await sandbox({}, 'a');
    expect(environment.cwd).toBe(join(paths.sandboxes, 'a'));
    const other = await manager.environmentFor('b');
    expect(other).not.toBe(environment);
    await environment.execute('echo mine > file');
    expect((await other.execute('cat file 2>&1; echo rc=$?')).output).toContain('rc=1');
    await manager.release('a');
    expect(readFileSync(join(paths.sandboxes, 'a', 'file'), 'utf8')).toBe('mine\n');
  });

  it('mounts terminal.cwd as the workspace when it is set', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hermes-sbx-cwd-'));
    const { environment } = await sandbox({ terminal: { cwd } });
    expect((await environment.execute('pwd; touch made-here')).output).toBe(`${cwd}\n`);
    expect(existsSync(join(cwd, 'made-here'))).toBe(true);
  });

  it('has no network by default, and the host network with terminal.sandbox.network: true', async () => {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.end('hi\n');
    });
    await listen(server, 0);
    const port = (server.address() as { port: number }).port;
    try {
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused`;
      expect((await (await sandbox()).environment.execute(probe)).output).toContain('refused');
      const open = await sandbox({ terminal: { sandbox: { network: true } } });
      expect((await open.environment.execute(probe)).output).toContain('connected');
    } finally {
      server.close();
    }
  });

  it('kills a setsid daemon started by a command when the command is killed', async () => {
    const { environment } = await sandbox();
    const marker = `4242.${process.pid}${Date.now() % 1000}`;
    const timedOut = await environment.execute(`setsid sleep ${marker} > /dev/null 2>&1 & sleep 1; echo started; sleep 1000`, { timeout: 3 });
    expect(timedOut.exit_code).toBe(124);
    expect(timedOut.output).toContain('started');
    expect(await survivorsOf(marker)).toEqual([]);

    const interrupted = `4343.${process.pid}${Date.now() % 1000}`;
    const controller = new AbortController();
    const running = environment.execute(`(setsid nohup sleep ${interrupted} > /dev/null 2>&1 &); echo up; sleep 1000`, { signal: controller.signal });
    for (let i = 0; i < 100 && processesWith(interrupted).length === 0; i++) await sleep(50);
    expect(processesWith(interrupted).length).toBeGreaterThan(0);
    controller.abort('user sent a new message');
    const result = await running;
    expect(result.output).toContain('[execution interrupted — user sent a new message]');
    expect(await survivorsOf(interrupted)).toEqual([]);
  });

  it('ends daemons when the command finishes normally', async () => {
    const { environment } = await sandbox();
    const marker = `4444.${process.pid}${Date.now() % 1000}`;
    const result = await environment.execute(`setsid sleep ${marker} > /dev/null 2>&1 & echo done`);
    expect(result.output).toBe('done\n');
    expect(await survivorsOf(marker)).toEqual([]);
  });

  it('gives a private /tmp that lasts between a session\'s commands and hides HERMES_HOME', async () => {
    const { environment, paths } = await sandbox();
    mkdirSync(paths.home, { recursive: true });
    writeFileSync(paths.env, 'OPENAI_API_KEY=sk-very-secret\n');
    const marker = `hermes-private-${process.pid}-${Date.now()}`;
    await environment.execute(`echo kept > /tmp/${marker}`);
    expect(existsSync(join('/tmp', marker))).toBe(false);
    expect((await environment.execute(`cat /tmp/${marker}`)).output).toBe('kept\n');
    expect((await environment.readFile!(`/tmp/${marker}`)).toString()).toBe('kept\n');
    const secret = await environment.execute(`cat ${paths.env}; ls -A ${paths.home}`);
    expect(secret.output).not.toContain('sk-very-secret');
  });

  it('gives two non-persistent sessions separate workspaces and deletes one on release', async () => {
    const { manager, environment: a } = await sandbox({ terminal: { container_persistent: false } }, 'a');
    const b: Environment = await manager.environmentFor('b');
    expect(a.cwd).not.toBe(b.cwd);
    await a.execute('echo mine > file');
    expect((await b.execute('cat file 2>&1; echo rc=$?')).output).toContain('rc=1');
    await manager.release('a');
    expect(existsSync(a.cwd)).toBe(false);
    expect(existsSync(b.cwd)).toBe(true);
  });

  it.runIf(hasPython || process.env.CI === 'true')('hostCommand runs python3 inside the sandbox and reaches a Unix socket in a bound folder', async () => {
    const { environment, paths } = await sandbox();
    // The socket lives under HERMES_HOME, which the sandbox hides unless the folder is bound.
    const socketDir = join(paths.cache, 'rpc-test');
    mkdirSync(socketDir, { recursive: true });
    const socketPath = join(socketDir, 'rpc.sock');
    const server = createServer((socket) => socket.on('data', (data) => socket.end(`pong:${data.toString()}`)));
    await listen(server, socketPath);
    try {
      const script = [
        'import socket, os',
        's = socket.socket(socket.AF_UNIX)',
        `s.connect(${JSON.stringify(socketPath)})`,
        's.sendall(b"ping")',
        'print(s.recv(100).decode(), os.getcwd(), os.path.basename(open("/proc/1/cmdline","rb").read().split(b"\\0")[0].decode()))',
      ].join('\n');
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/' };
      const command = environment.hostCommand!(['python3', '-c', script], { env, binds: [socketDir] });
      expect(command.file).toMatch(/bwrap$/);
      const run = await execa(command.file, command.args, { cwd: command.cwd, env: command.env, extendEnv: false, reject: false });
      expect(run.stderr).toBe('');
      // pid 1 of the namespace is bwrap: the script ran inside the sandbox.
      expect(run.stdout).toBe(`pong:ping ${environment.cwd} bwrap`);
      const unbound = environment.hostCommand!(['python3', '-c', script], { env });
      const refused = await execa(unbound.file, unbound.args, { cwd: unbound.cwd, env: unbound.env, extendEnv: false, reject: false });
      expect(refused.exitCode).not.toBe(0);
    } finally {
      server.close();
    }
  });
});

describe.runIf((hasBwrap && hasPython) || process.env.CI === 'true')('execute_code on the sandbox backend', () => {
  it('runs the script inside the sandbox and serves its hermes_tools calls over the RPC socket', async () => {
    const { environment, config, paths } = await sandbox();
    const { createCodeExecutor } = await import('../../src/execute-code/index.js');
    const { silentLogger } = await import('../../src/shared/index.js');
    const executor = createCodeExecutor({ loaded: { config, paths, warnings: [] } });
    try {
      const code = [
        'import os',
        'from hermes_tools import terminal',
        'print(os.getcwd())',
        'print(os.path.basename(open("/proc/1/cmdline","rb").read().split(b"\\0")[0].decode()))',
        'try:',
        '    open("/etc/hermes-script-probe", "w")',
        'except OSError as e:',
        '    print("readonly", e.errno)',
        'print(terminal("hostname")["output"].strip())',
      ].join('\n');
      const ctx = {
        sessionId: 's', signal: new AbortController().signal, environment, logger: silentLogger(), config, paths,
      };
      const run = await executor.execute({ code, sessionId: 's', context: ctx });
      expect(run.status).toBe('success');
      expect(run.output).toBe(`${environment.cwd}\nbwrap\nreadonly 30\nhermes-sandbox\n`);
      expect(run.tool_calls_made).toBe(1);
    } finally {
      await executor.close();
    }
  });
});
