import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { createEnvironmentManager } from '../../src/environments/index.js';
import { createCodeExecutor } from '../../src/execute-code/index.js';
import { silentLogger } from '../../src/shared/index.js';
import type { ToolContext } from '../../src/tools/index.js';
import { hermes, hermesExecCtrlC } from '../helpers/hermes-process.js';
import { processAlive, waitForPid } from '../helpers/processes.js';

/**
 * test/fixtures/plugins/readme-box was written from the README's "Plugins" section alone:
 * it offers execute, cwd and cleanup and none of the optional members, so everything here
 * goes through the file transport. These tests prove that contract is enough.
 */
const fixture = join(import.meta.dirname, '../fixtures/plugins/readme-box');

/** A HERMES_HOME with the README-only plugin installed, enabled and chosen as the backend. */
function boxHome(extra = ''): string {
  const home = mkdtempSync(join(tmpdir(), 'hermes-readme-box-'));
  cpSync(fixture, join(home, 'plugins', 'readme-box'), { recursive: true });
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  backend: readme_box\n${extra}plugins:\n  enabled: [readme-box]\n`);
  return home;
}

/** Where the plugin makes its folders (the test run's TMPDIR). */
const boxFolders = join(tmpdir(), 'readme-box-');

describe('a plugin written from the README alone', () => {
  it('runs execute_code one-shot through hermes exec: the script, its tool calls and its variables are on the plugin', async () => {
    const home = boxHome('  env_passthrough: [README_BOX_COLOUR]\n');
    const script = [
      'import os',
      'from hermes_tools import terminal, write_file, read_file',
      'print(os.getcwd())',
      'print("socket" if "HERMES_RPC_SOCKET" in os.environ else "files", os.environ.get("README_BOX_COLOUR"))',
      'write_file("note.txt", "written through the box\\n")',
      'print(read_file("note.txt")["content"].strip())',
      'print(terminal("cat note.txt; pwd")["output"].strip())',
    ].join('\n');
    const run = await hermes(home, ['exec', '-', '--json'], { stdin: script, env: { README_BOX_COLOUR: 'teal' } });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { status: string; output: string; tool_calls_made: number };
    expect(result).toMatchObject({ status: 'success', tool_calls_made: 3 });
    const [cwd, transport, read, catted, pwd] = result.output.trim().split('\n');
    expect(cwd.startsWith(boxFolders)).toBe(true);
    expect(transport).toBe('files teal');
    expect(read).toBe('written through the box');
    expect(catted).toBe('written through the box');
    expect(pwd).toBe(cwd);
    // hermes exec cleaned the environment up: the plugin removed its folder.
    expect(existsSync(cwd)).toBe(false);
  }, 60_000);

  it('kills a one-shot script that runs past --timeout, and what it started, through the plugin', async () => {
    const home = boxHome();
    const pidFile = join(home, 'sleep.pid');
    const script = `import subprocess, time\np = subprocess.Popen(["sleep", "300"])\nopen(${JSON.stringify(pidFile)}, "w").write(str(p.pid))\ntime.sleep(300)\n`;
    const run = await hermes(home, ['exec', '-', '--timeout', '3', '--json'], { stdin: script });
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'timeout', error: 'Script timed out after 3s and was killed.' });
    expect(processAlive(await waitForPid(pidFile))).toBe(false);
  }, 60_000);

  it('interrupts a one-shot script on Ctrl-C through the plugin\'s signal: the reason is shown and what it started is gone', async () => {
    const { code, result, sleeper } = await hermesExecCtrlC(boxHome(), 300);
    expect(code).toBe(1);
    expect(result).toMatchObject({ status: 'interrupted', output: '[execution interrupted — interrupted by user]' });
    expect(processAlive(sleeper)).toBe(false);
  }, 60_000);

  describe('in a session kernel', () => {
    /** What open() made, undone after each test in reverse: the executor before the environments. */
    const undo: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const step of undo.splice(0).reverse()) await step();
    });

    async function open() {
      const loaded = loadConfig({ home: boxHome(), overrides: { code_execution: { session_kernels: true } } });
      const { manager } = await createEnvironmentManager({ config: loaded.config, paths: loaded.paths });
      undo.push(() => manager.closeAll());
      const executor = createCodeExecutor({ loaded });
      undo.push(() => executor.close());
      const environment = await manager.environmentFor('s1');
      const context = (signal = new AbortController().signal): ToolContext => ({
        sessionId: 's1', signal, environment, logger: silentLogger(), config: loaded.config, paths: loaded.paths,
      });
      return { executor, environment, context };
    }

    it('keeps variables between two calls, in one kernel process on the plugin, with tool calls', async () => {
      const { executor, environment, context } = await open();
      const first = await executor.execute({ sessionId: 's1', code: 'import os\nanswer = 41\nprint(os.getpid(), os.getcwd())', context: context() });
      expect(first).toMatchObject({ status: 'success', kernel: { mode: 'session', reused: false } });
      const [pid, cwd] = first.output.trim().split(' ');
      expect(cwd).toBe(environment.cwd);
      expect(cwd.startsWith(boxFolders)).toBe(true);

      const second = await executor.execute({
        sessionId: 's1',
        code: 'from hermes_tools import terminal\nanswer += 1\nprint(answer, os.getpid(), terminal("echo from-terminal")["output"].strip())',
        context: context(),
      });
      expect(second).toMatchObject({ status: 'success', tool_calls_made: 1, kernel: { mode: 'session', reused: true, execution_count: 2 } });
      expect(second.output).toBe(`42 ${pid} from-terminal\n`);
    }, 60_000);

    it('interrupts a cell when the signal aborts: the reason is shown and the kernel process is gone', async () => {
      const { executor, context } = await open();
      const started = await executor.execute({ sessionId: 's1', code: 'import os\nprint(os.getpid())', context: context() });
      const pid = Number(started.output.trim());
      expect(processAlive(pid)).toBe(true);
      const controller = new AbortController();
      const cell = executor.execute({ sessionId: 's1', code: 'import time\nprint("sleeping", flush=True)\ntime.sleep(300)', context: context(controller.signal) });
      setTimeout(() => controller.abort('user sent a new message'), 1500);
      const result = await cell;
      expect(result).toMatchObject({ status: 'interrupted' });
      expect(result.output).toContain('[execution interrupted — user sent a new message]');
      expect(processAlive(pid)).toBe(false);
    }, 60_000);
  });
});
