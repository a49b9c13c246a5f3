import { afterEach, describe, expect, it } from 'vitest';
import { executeCodeDescription } from '../../src/execute-code/index.js';
import { loadConfig } from '../../src/config/index.js';
import { buildChildEnv, setChildTimezone } from '../../src/environments/child-env.js';
import { SCRIPT_TOOL_NAMES } from '../../src/tools/builtin/index.js';
import { makeToolContext, tempDir } from '../helpers/tool-context.js';
import { createEnvironmentManager } from '../../src/environments/index.js';
import { terminalTool } from '../../src/tools/builtin/index.js';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { EXECUTION_MODES, executorsForFile } from './helpers.js';

/*
 * Issue 24: scripts and configs written for hermes-agent work unchanged. One test (or more)
 * per difference the issue lists, through real Python and the real executor.
 */

const executorWith = executorsForFile();
afterEach(() => setChildTimezone(''));
const MODES = EXECUTION_MODES;

describe('TZ from the configured timezone', () => {
  it('config.yaml timezone becomes TZ in children; HERMES_TIMEZONE overrides it; an unknown zone sets none', () => {
    const home = tempDir('hermes-home-');
    loadConfig({ home, overrides: { timezone: 'Asia/Tokyo' } });
    expect(buildChildEnv({ source: { PATH: '/usr/bin' } }).TZ).toBe('Asia/Tokyo');
    expect(buildChildEnv({ source: { PATH: '/usr/bin', TZ: 'UTC' } }).TZ).toBe('Asia/Tokyo');
    expect(buildChildEnv({ source: { PATH: '/usr/bin', HERMES_TIMEZONE: ' America/Edmonton ' } }).TZ).toBe('America/Edmonton');
    const bad = loadConfig({ home, overrides: { timezone: 'Mars/Olympus_Mons' } });
    expect(bad.warnings.join('\n')).toContain('timezone: "Mars/Olympus_Mons" is not a known IANA zone name');
    expect(buildChildEnv({ source: { PATH: '/usr/bin' } }).TZ).toBeUndefined();
    expect(buildChildEnv({ source: { PATH: '/usr/bin', TZ: 'UTC' } }).TZ).toBe('UTC');
  });

  it.each(MODES)('a $name sees the configured zone in time.localtime()', async ({ kernels }) => {
    const executor = executorWith(kernels, { timezone: 'Asia/Kathmandu' });
    const result = await executor.execute({
      sessionId: 'tz',
      code: 'import os, time\nprint(os.environ.get("TZ"), time.localtime().tm_gmtoff)',
    });
    // Kathmandu is UTC+05:45 all year: 20700 seconds.
    expect(result.output).toBe('Asia/Kathmandu 20700\n');
  });
});

describe('a truncated result', () => {
  it.each(MODES)('in a $name carries stdout_bytes_captured and stdout_bytes_omitted', async ({ kernels }) => {
    const executor = executorWith(kernels, { code_execution: { max_stdout_bytes: 1000 } });
    const result = await executor.execute({ sessionId: 'cut', code: 'print("x" * 9999)' });
    expect(result.stdout_truncated).toBe(true);
    expect(result.stdout_bytes_total).toBe(10_000);
    expect(result.stdout_bytes_captured).toBe(1000);
    expect(result.stdout_bytes_omitted).toBe(9000);
    const small = await executor.execute({ sessionId: 'cut', code: 'print("short")' });
    expect(small.stdout_truncated).toBe(false);
    expect(small).not.toHaveProperty('stdout_bytes_omitted');
  });
});

describe('the enabled-tool set', () => {
  const offered = 'import hermes_tools\nprint(sorted(hermes_tools._AVAILABLE))';
  const all = `${JSON.stringify([...SCRIPT_TOOL_NAMES].sort()).replaceAll('"', "'").replaceAll(',', ', ')}\n`;

  it.each([
    { what: 'missing', enabledTools: undefined },
    { what: 'empty', enabledTools: [] },
    { what: 'sharing no script tool', enabledTools: ['execute_code', 'delegate_task'] },
  ])('$what gives scripts all script tools', async ({ enabledTools }) => {
    const executor = executorWith(false);
    const result = await executor.execute({ sessionId: 'fallback', enabledTools, code: offered });
    expect(result.output).toBe(all);
    const config = loadConfig({ home: tempDir('hermes-home-') }).config;
    for (const name of SCRIPT_TOOL_NAMES) expect(executeCodeDescription(config, enabledTools)).toContain(`  ${name}(`);
  });

  it('one sharing a tool narrows to what it shares', async () => {
    const executor = executorWith(false);
    const result = await executor.execute({ sessionId: 'narrow', enabledTools: ['execute_code', 'read_file'], code: offered });
    expect(result.output).toBe("['read_file']\n");
  });
});

describe('the tool description', () => {
  it('does not call a local backend isolated, and says what each backend is', () => {
    const described = (backend: string) =>
      executeCodeDescription(loadConfig({ home: tempDir('hermes-home-'), overrides: { terminal: { backend } } }).config);
    for (const mode of ['project', 'strict'] as const) {
      const local = executeCodeDescription(
        loadConfig({ home: tempDir('hermes-home-'), overrides: { terminal: { backend: 'local' }, code_execution: { mode } } }).config,
      );
      expect(local.replaceAll('not isolated', '')).not.toContain('isolated');
      expect(local).toContain('Backend: local');
      expect(local).toContain('not isolated');
    }
    expect(described('ssh')).toContain('Backend: ssh');
    expect(described('ssh')).toContain('not isolated');
    expect(described('sandbox')).toContain('bubblewrap sandbox');
    expect(described('docker')).toContain('inside a container');
  });
});

describe('sys.exit() in a kernel cell', () => {
  it('is reported as the end of the kernel; the next cell is a fresh one, not a state reset', async () => {
    const executor = executorWith(true);
    await executor.execute({ sessionId: 'exit', code: 'v = 1' });
    const exited = await executor.execute({ sessionId: 'exit', code: 'import sys\nprint("bye")\nsys.exit(0)' });
    expect(exited).toMatchObject({ status: 'success', exit_code: 0, kernel: { mode: 'session', reused: true, ended: true } });
    expect(exited.output).toContain('bye\n[sys.exit(0) ended the session kernel');
    const next = await executor.execute({ sessionId: 'exit', code: 'print("v" in globals())' });
    expect(next.output).toBe('False\n');
    expect(next.kernel).toEqual({ mode: 'session', reused: false, execution_count: 1, state_reset: false });
    // A kernel lost without asking (a timeout) still reports the reset on the next call.
    const slow = executorWith(true, { code_execution: { timeout: 1 } });
    await slow.execute({ sessionId: 'lost', code: 'import time\ntime.sleep(5)' });
    const after = await slow.execute({ sessionId: 'lost', code: 'print(1)' });
    expect(after.kernel).toMatchObject({ reused: false, state_reset: true });
  });
});

describe("a terminal() cd", () => {
  it.each(MODES)('in a $name is where the next execute_code and the next terminal command start', async ({ kernels }) => {
    const executor = executorWith(kernels);
    const first = await executor.execute({
      sessionId: 'cd',
      code: 'import os\nos.mkdir("sub")\nfrom hermes_tools import terminal\nr = terminal("cd sub && echo moved")\nprint(repr(r["output"]), r["exit_code"])\nprint(terminal("pwd")["output"].strip().endswith("/sub"))',
    });
    expect(first.output).toBe("'moved\\n' 0\nTrue\n");
    const next = await executor.execute({ sessionId: 'cd', code: 'import os\nprint(os.path.basename(os.getcwd()))' });
    expect(next.output).toBe('sub\n');
    // The kernel's own move is not a cell of the script's: the count goes on from the first call.
    if (kernels) expect(next.kernel).toMatchObject({ reused: true, execution_count: 2 });
    // workdir runs one command elsewhere and moves nothing.
    const rest = await executor.execute({
      sessionId: 'cd',
      code: 'import os\nfrom hermes_tools import terminal\nterminal("true", workdir="/")\nprint(os.path.basename(terminal("pwd")["output"].strip()))',
    });
    expect(rest.output).toBe('sub\n');
  });
});

describe('the followed working folder', () => {
  it("is each session's own on the shared local environment, and dropped when the session ends", async () => {
    const home = tempDir('hermes-home-');
    const cwd = tempDir('hermes-cwd-');
    mkdirSync(join(cwd, 'a'));
    const { config, paths } = loadConfig({ home, overrides: { terminal: { backend: 'local', cwd } } });
    const { manager } = await createEnvironmentManager({ config, paths });
    const terminal = terminalTool();
    const run = async (sessionId: string, command: string) =>
      (await terminal.handler({ command }, makeToolContext({ environment: await manager.environmentFor(sessionId), sessionId }))) as {
        output: string;
      };
    try {
      await run('one', 'cd a');
      expect((await run('one', 'pwd')).output).toBe(`${realpathSync(join(cwd, 'a'))}\n`);
      expect((await run('two', 'pwd')).output).toBe(`${realpathSync(cwd)}\n`);
      // A cd that ends in a folder then removed is not followed by the next command.
      await run('two', 'mkdir gone && cd gone && rmdir ../gone');
      expect((await run('two', 'pwd')).output).toBe(`${realpathSync(cwd)}\n`);
      await manager.release('one');
      expect((await run('one', 'pwd')).output).toBe(`${realpathSync(cwd)}\n`);
    } finally {
      await manager.closeAll();
    }
  });
});

describe("the stubs take hermes-agent's signatures", () => {
  it('search_files(context, offset, output_mode) and patch(mode="patch", patch=...) reach the tools, which honour them', async () => {
    const executor = executorWith(false);
    const result = await executor.execute({
      sessionId: 'sig',
      code: `
import inspect
from hermes_tools import search_files, patch
print(list(inspect.signature(patch).parameters))
open("a.txt", "w").write("one\\ntwo\\nthree\\nfour\\n")
open("b.txt", "w").write("two\\n")
hit = search_files("three", path=".", context=1)["matches"]
print([(m["line"], m["content"], [b["content"] for b in m.get("before", [])], [a["content"] for a in m.get("after", [])]) for m in hit])
print(search_files("two", path=".", output_mode="files_with_matches", offset=1, limit=1))
r = patch(mode="patch", patch="*** Begin Patch\\n*** Update File: b.txt\\n-two\\n+TWO\\n*** End Patch\\n")
print(r["success"], open("b.txt").read().strip())
`,
    });
    const lines = result.output.split('\n');
    expect(lines[0]).toBe("['path', 'old_string', 'new_string', 'replace_all', 'mode', 'patch']");
    expect(lines[1]).toBe("[(3, 'three', ['two'], ['four'])]");
    expect(lines[2]).toContain('b.txt');
    expect(lines[2]).not.toContain('a.txt');
    expect(lines[3]).toBe('True TWO');
  });
});
