import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { configSchema, deepMerge, hermesPaths, type ConfigOverrides } from '../../src/config/index.js';
import { EnvironmentManager, findExecutable, loadProviderRegistry, type Environment } from '../../src/environments/index.js';
import { createCodeExecutor, type DefaultCodeExecutor } from '../../src/execute-code/index.js';
import { silentLogger } from '../../src/shared/index.js';
import { scriptTools } from '../../src/tools/builtin/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/tools/types.js';
import { kernelRunnerPath } from '../../src/execute-code/kernel/index.js';

/*
 * The sandbox tried as a hostile script would: every "cannot" in the README's security
 * section is an attack here, and the test fails if the attack works. HERMES_HOME and the
 * host's files live outside /tmp (under /var/tmp), as ~/.hermes does on a real host, so the
 * sandbox's private /tmp is not what hides them.
 */

const ready = process.platform === 'linux' && findExecutable('bwrap') !== undefined && findExecutable('python3') !== undefined;
if (!ready && process.env.CI !== 'true') console.log('sandbox attack tests skipped: bubblewrap (bwrap) or python3 is not installed');

const SECRET = 'sk-attack-test-secret-0123456789';
const outside = mkdtempSync('/var/tmp/hermes-attack-');
const home = join(outside, 'hermes-home');
const victim = join(outside, 'victim.txt');
const registry = new ToolRegistry(scriptTools());
const managers: EnvironmentManager[] = [];
const executors: DefaultCodeExecutor[] = [];
const servers: Server[] = [];

beforeAll(() => {
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, '.env'), `OPENAI_API_KEY=${SECRET}\n`);
  writeFileSync(join(home, 'config.yaml'), 'terminal:\n  backend: sandbox\n');
  writeFileSync(victim, 'original\n');
});

afterAll(async () => {
  await Promise.all(executors.map((executor) => executor.close()));
  await Promise.all(managers.map((manager) => manager.closeAll()));
  for (const server of servers) server.close();
  rmSync(outside, { recursive: true, force: true });
});

async function setup(overrides: ConfigOverrides = {}) {
  const config = configSchema.parse(deepMerge({ terminal: { backend: 'sandbox' } }, overrides));
  const paths = hermesPaths(home);
  const { registry: providers } = await loadProviderRegistry({ config, paths });
  const manager = new EnvironmentManager({ config, paths, registry: providers });
  managers.push(manager);
  const executor = createCodeExecutor({ loaded: { config, paths, warnings: [] }, registry });
  executors.push(executor);
  const context = (session: string, environment: Environment, signal = new AbortController().signal): ToolContext => ({
    sessionId: session, signal, environment, logger: silentLogger(), config, paths,
  });
  /** Runs `code` as session `session`'s execute_code cell. */
  const run = async (session: string, code: string) => {
    const environment = await manager.environmentFor(session);
    return executor.execute({ code, sessionId: session, context: context(session, environment) });
  };
  /** Calls a tool the way the model does, in session `session`'s sandbox. */
  const tool = async (session: string, name: string, args: Record<string, unknown>) =>
    registry.dispatch(name, args, context(session, await manager.environmentFor(session))) as Promise<Record<string, unknown>>;
  return { config, paths, manager, executor, run, tool };
}

const py = (...lines: string[]) => lines.join('\n');

describe.runIf(ready || process.env.CI === 'true')('the sandbox against a hostile script', () => {
  it('file tools do not follow a symlink to HERMES_HOME/.env out of the sandbox', async () => {
    const { run, tool } = await setup();
    const made = await run('s1', py(
      'import os',
      `os.symlink(${JSON.stringify(join(home, '.env'))}, "link")`,
      'from hermes_tools import read_file',
      'print(read_file("link"))',
    ));
    expect(made.status).toBe('success');
    expect(made.output).not.toContain(SECRET);
    expect(made.output).toContain('file not found');
    const direct = await tool('s1', 'read_file', { path: 'link' });
    expect(JSON.stringify(direct)).not.toContain(SECRET);
    expect(direct.error).toContain('file not found');
    const searched = await tool('s1', 'search_files', { pattern: 'sk-attack', path: '.' });
    expect(JSON.stringify(searched)).not.toContain(SECRET);
  });

  it('file tools reach no host file through /proc/self/root', async () => {
    const { tool } = await setup();
    for (const path of [`/proc/self/root${home}/config.yaml`, `/proc/1/root${home}/.env`, `/proc/self/cwd/../../../..${home}/.env`]) {
      const read = await tool('s2', 'read_file', { path });
      expect(JSON.stringify(read)).not.toContain(SECRET);
      expect(read.error, path).toBeDefined();
    }
    const write = await tool('s2', 'write_file', { path: `/proc/self/root${victim}`, content: 'owned\n' });
    // Not even into the sandbox's own root, where it would vanish: outside the workspace and /tmp all is read-only.
    expect(String(write.error)).toMatch(/read-only/i);
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
  });

  it('write_file and patch through a symlink change no host file', async () => {
    const { run, tool } = await setup();
    const made = await run('s3', py(
      'import os',
      `os.symlink(${JSON.stringify(victim)}, "to-victim")`,
      `os.symlink(${JSON.stringify(join(home, 'config.yaml'))}, "to-config")`,
      'from hermes_tools import write_file, patch',
      'print(write_file("to-victim", "owned"))',
      'print(patch("to-config", "sandbox", "local"))',
    ));
    expect(made.status).toBe('success');
    expect(readFileSync(victim, 'utf8')).toBe('original\n');
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toContain('backend: sandbox');
    const direct = await tool('s3', 'patch', { path: 'to-config', old_string: 'sandbox', new_string: 'local' });
    expect(direct.error).toBeDefined();
    expect(readFileSync(join(home, 'config.yaml'), 'utf8')).toContain('backend: sandbox');
  });

  it('sees no home folders, /run, HERMES_HOME, host files or shadow files, and cannot write the system', async () => {
    const { run } = await setup();
    const result = await run('s4', py(
      'import os',
      `for p in ["/home", "/root/.ssh", "/root/.pyenv/shims", "/run", "/var/run", "/var/lib", "/srv", "/mnt", ${JSON.stringify(join(home, '.env'))}, ${JSON.stringify(join(home, 'config.yaml'))}, ${JSON.stringify(victim)}]:`,
      '    print(p, os.path.exists(p))',
      // The workspace's own path is there (under HERMES_HOME/sandboxes), and nothing else of its parents.
      `print("home holds", sorted(os.listdir(${JSON.stringify(home)})))`,
      'def read(p):',
      '    try:',
      '        return repr(open(p).read())',
      '    except OSError as e:',
      '        return "refused %d" % e.errno',
      'print("shadow", read("/etc/shadow"))',
      'keys = [n for n in os.listdir("/etc/ssh") if n.endswith("_key")] if os.path.isdir("/etc/ssh") else []',
      'print("hostkeys", [read("/etc/ssh/" + n) for n in keys])',
      'for p in ["/usr/hermes-probe", "/etc/hermes-probe"]:',
      '    try:',
      '        open(p, "w")',
      '        print(p, "WRITTEN")',
      '    except OSError as e:',
      '        print(p, "refused", e.errno)',
    ));
    expect(result.status, result.output).toBe('success');
    for (const line of result.output.trim().split('\n').slice(0, 11)) expect(line).toMatch(/ False$/);
    expect(result.output).toContain("home holds ['sandboxes']");
    expect(result.output).toMatch(/shadow (''|refused 13)/);
    expect(result.output).toMatch(/hostkeys \[((''|'refused 13')(, )?)*\]/);
    expect(result.output).not.toContain('WRITTEN');
    expect(existsSync('/usr/hermes-probe')).toBe(false);
  });

  it('cannot connect to a host Unix socket outside /tmp', async () => {
    const { run } = await setup();
    const socketPath = join(outside, 'engine.sock');
    let connections = 0;
    const server = createServer((socket) => {
      connections++;
      socket.end('hello from the host\n');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const result = await run('s5', py(
      'import socket',
      's = socket.socket(socket.AF_UNIX)',
      'try:',
      `    s.connect(${JSON.stringify(socketPath)})`,
      '    print("CONNECTED", s.recv(100))',
      'except OSError as e:',
      '    print("refused", e.errno)',
    ));
    expect(result.output).toMatch(/^refused \d+/);
    expect(connections).toBe(0);
  });

  it('cannot rewrite the kernel runner that the gateway also runs on the host', async () => {
    const { run } = await setup();
    const runner = kernelRunnerPath();
    const before = readFileSync(runner, 'utf8');
    const result = await run('s6', py(
      'try:',
      `    open(${JSON.stringify(runner)}, "a").write("# owned")`,
      '    print("WRITTEN")',
      'except OSError as e:',
      '    print("refused", e.errno)',
    ));
    // EROFS as a plain user; EACCES as root, where the sandbox runs as a user who may not write root's file either.
    expect(result.output).toMatch(/^refused (13|30)$/m);
    expect(readFileSync(runner, 'utf8')).toBe(before);
  });

  it("one session's script sees nothing of another's workspace, staging, RPC token or processes", async () => {
    const { run, manager } = await setup();
    const a = await run('victim-session', py(
      'import os',
      'open("private.txt", "w").write("victim data")',
      'print(os.environ["HERMES_RPC_TOKEN"])',
      'print(os.environ["HERMES_RPC_SOCKET"])',
      'print(os.getcwd())',
    ));
    expect(a.status).toBe('success');
    const [token, socketPath, workspace] = a.output.trim().split('\n');
    expect((await manager.environmentFor('attacker')).cwd).not.toBe(workspace);
    const b = await run('attacker', py(
      'import os, glob',
      `print("workspace", os.path.exists(${JSON.stringify(join(workspace, 'private.txt'))}))`,
      `print("socket", os.path.exists(${JSON.stringify(socketPath)}))`,
      'found = []',
      'for env in glob.glob("/proc/[0-9]*/environ"):',
      '    try:',
      '        found.append(open(env, "rb").read())',
      '    except OSError:',
      '        pass',
      `print("token", any(${JSON.stringify(token)}.encode() in e for e in found))`,
      'print("staging", sorted(glob.glob("/tmp/hermes-exec-*")))',
    ));
    expect(b.status).toBe('success');
    expect(b.output).toContain('workspace False');
    expect(b.output).toContain('socket False');
    expect(b.output).toContain('token False');
    const staging = /staging (\[.*\])/.exec(b.output)?.[1] ?? '';
    expect(staging).not.toContain(socketPath.replace(/\/rpc\.sock$/, ''));
  });

  it('puts a cut stdout where read_file in the same sandbox can open it, and a script cannot redirect that write onto the host', async () => {
    const { run, tool } = await setup({ code_execution: { max_stdout_bytes: 1000 } });
    const target = join(outside, 'spill-target');
    mkdirSync(target);
    // The spill folder is a read-only mount: it can be neither removed nor swapped for a symlink to a host folder.
    const swap = await run('s7', py(
      'import os, subprocess',
      `print(subprocess.run("rm -rf /tmp/hermes-spill; ln -s ${target} /tmp/hermes-spill; ln -s ${target} /tmp/hermes-spill/x", shell=True, capture_output=True, text=True).stderr.count("rm:") > 0)`,
    ));
    expect(swap.output).toBe('True\n');
    const result = await run('s7', 'for i in range(2000): print("line", i)');
    expect(readdirSync(target)).toEqual([]);
    expect(result.stdout_truncated).toBe(true);
    const spill = result.stdout_spill_path!;
    expect(spill.startsWith('/tmp/')).toBe(true);
    const read = await tool('s7', 'read_file', { path: spill, offset: 1999, limit: 2 });
    expect(read.content).toBe('line 1998\nline 1999');
  });
});
