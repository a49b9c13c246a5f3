import { describe, expect, it } from 'vitest';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { executeCodeDescription, executeCodeTool } from '../../src/execute-code/index.js';
import { TOOLS_CHANGED_NOTE } from '../../src/shared/index.js';
import { remoteScriptEnv } from '../../src/execute-code/remote/index.js';
import { loadConfig } from '../../src/config/index.js';
import { createEnvironmentManager } from '../../src/environments/index.js';
import { resolveWorkingFolder } from '../../src/environments/working-folder.js';
import { toolSchemas } from '../../src/agent/loop.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { scriptTools, terminalTool } from '../../src/tools/builtin/index.js';
import { REDACTED } from '../../src/shared/redact.js';
import { makeToolContext, tempDir } from '../helpers/tool-context.js';
import { EXECUTION_MODES, executorsForFile } from './helpers.js';

/*
 * Scripts written for the system we implement must behave the same here: one test (or more)
 * per difference the issue lists, each through real Python and the real executor.
 */

const executorWith = executorsForFile();
/** What `code` printed, run in session `sessionId` on an executor of its own. */
const outputOf = async (kernels: boolean, sessionId: string, code: string): Promise<string> => (await executorWith(kernels).execute({ sessionId, code })).output;
const MODES = EXECUTION_MODES;

/** Python that builds credential-shaped strings at run time (no such literal in the repository). */
const SECRETS_PY = `
gh = "gh" + "p_" + "A1b2C3d4E5" * 4
sk = "s" + "k-proj-" + "Zx9Yw8Vu7T" * 4
bearer = "Authorization: " + "Bearer " + "tok3n.V4lue-" * 3
url = "https://deploy:" + "hunter2pw" + "@git.example.test/repo.git"
pem = "-----BEGIN " + "RSA PRIVATE KEY-----\\n" + "MIIEpAIBAAKCAQEA7" * 4 + "\\n-----END RSA PRIVATE KEY-----"
`;

describe.each(MODES)('parity in a $name', ({ kernels }) => {
  it('strips ANSI escape sequences (CSI, OSC, other ESC) from stdout and stderr', async () => {
    const executor = executorWith(kernels);
    const result = await executor.execute({
      sessionId: 'ansi',
      code: `
import sys
print("\\x1b[1;31mred\\x1b[0m \\x1b[38;2;255;128;0mtrue colour\\x1b[0m\\x1b[K")
print("\\x1b]0;window title with spaces\\x07title gone")
print("\\x1b]8;;https://example.test/page\\x1b\\\\link\\x1b]8;;\\x1b\\\\ text")
print("\\x1b(B\\x1b7saved\\x1b8\\x1b[?25l\\x1b[2J\\x1b[Hcursor\\x1b[?25h")
print("\\x1b[33mwarning on stderr\\x1b[0m", file=sys.stderr)
raise SystemExit(3)
`,
    });
    expect(result.output).toContain('red true colour\ntitle gone\nlink text\nsavedcursor\n');
    expect(result.output).toContain('warning on stderr');
    expect(result.output).not.toContain('\u001b');
    expect(result.output).not.toMatch(/\[(?:1;31|0|33|\?25l)m?/);
  });

  it('strips ANSI from what terminal() returns to the script', async () => {
    const output = await outputOf(kernels, 'ansi-terminal', `
from hermes_tools import terminal
r = terminal("printf '\\\\033[32mgreen\\\\033[0m and \\\\033]0;title\\\\007plain'")
print(repr(r["output"]))
`);
    expect(output).toBe("'green and plain'\n");
  });

  it('json_parse accepts raw tabs and newlines inside strings (strict=False) and still a BOM', async () => {
    const output = await outputOf(kernels, 'json', `
from hermes_tools import json_parse
import json
raw = '{"a": "col1\\tcol2", "b": "line1\\nline2"}'
try:
    json.loads(raw)
    print("strict json accepted it")
except ValueError:
    print("strict json refused it")
print(json_parse(raw) == {"a": "col1\\tcol2", "b": "line1\\nline2"})
print(json_parse("\\ufeff" + raw)["b"].splitlines(), json_parse(("\\ufeff" + raw).encode("utf-8"))["a"].split("\\t"))
`);
    expect(output).toBe("strict json refused it\nTrue\n['line1', 'line2'] ['col1', 'col2']\n");
  });

  it('runs Python in UTF-8 mode (PYTHONUTF8=1)', async () => {
    const output = await outputOf(kernels, 'utf8', `
import os, sys, locale
print(sys.flags.utf8_mode, os.environ.get("PYTHONUTF8"), locale.getpreferredencoding(False))
open("ü.txt", "w").write("naïve — ✓")
print(open("ü.txt", "rb").read().decode("utf-8"))
`);
    expect(output).toBe('1 1 utf-8\nnaïve — ✓\n');
  });

  it('raises an ImportError that names what can be imported, for a name not offered', async () => {
    const executor = executorWith(kernels);
    const result = await executor.execute({
      sessionId: 'import',
      enabledTools: ['read_file', 'terminal'],
      code: `
try:
    from hermes_tools import vision_analyze
except ImportError as error:
    print(type(error).__name__, "|", error)
import hermes_tools
print(hasattr(hermes_tools, "vision_analyze"), getattr(hermes_tools, "vision_analyze", "default"))
try:
    hermes_tools.web_search
except AttributeError as error:
    print("AttributeError |", error)
from hermes_tools import read_file, terminal, json_parse
print("offered ones import")
`,
    });
    const lines = result.output.split('\n');
    expect(lines[0]).toBe(
      "ImportError | cannot import name 'vision_analyze' from hermes_tools: it is not available in execute_code here. " +
        'You can import: read_file, terminal, json_parse, shell_quote, retry',
    );
    expect(lines[1]).toBe('False default');
    expect(lines[2]).toMatch(/^AttributeError \| cannot import name 'web_search' from hermes_tools: .*You can import: read_file, terminal,/);
    expect(lines[3]).toBe('offered ones import');
  });

  it('masks credential-shaped strings in output and error before the model sees them', async () => {
    const executor = executorWith(kernels);
    const result = await executor.execute({
      sessionId: 'redact',
      code: `${SECRETS_PY}
import sys
print(gh, sk)
print(bearer)
print(url)
print(pem)
print("on stderr", gh, file=sys.stderr)
raise RuntimeError("leaked " + sk)
`,
    });
    expect(result.status).toBe('error');
    expect(result.output).toContain(`ghp_${REDACTED} sk-${REDACTED}\n`);
    expect(result.output).toContain(`Authorization: Bearer ${REDACTED}\n`);
    expect(result.output).toContain(`https://deploy:${REDACTED}@git.example.test/repo.git\n`);
    expect(result.output).toContain(`-----BEGIN RSA PRIVATE KEY-----\n${REDACTED}\n-----END RSA PRIVATE KEY-----\n`);
    expect(result.output).toContain(`on stderr ghp_${REDACTED}`);
    expect(result.error).toMatch(/RuntimeError: leaked sk-\[REDACTED\]$/);
    for (const leaked of ['A1b2C3d4E5', 'Zx9Yw8Vu7T', 'tok3n.V4lue', 'hunter2pw', 'MIIEpAIBAAKCAQEA7']) {
      expect(result.output).not.toContain(leaked);
      expect(result.error).not.toContain(leaked);
    }
  });

  it('masks credentials in what terminal() returns to the script', async () => {
    const output = await outputOf(kernels, 'redact-terminal', `${SECRETS_PY}
from hermes_tools import terminal
r = terminal("echo " + gh)
print("the script got:", r["output"].strip().replace("ghp_", "GHP:"))
`);
    expect(output).toBe(`the script got: GHP:${REDACTED}\n`);
  });

  it('leaves credentials alone with code_execution.redact_secrets: false', async () => {
    const executor = executorWith(kernels, { code_execution: { redact_secrets: false } });
    const result = await executor.execute({ sessionId: 'no-redact', code: `${SECRETS_PY}\nprint(gh)` });
    expect(result.output).toBe(`ghp_${'A1b2C3d4E5'.repeat(4)}\n`);
  });
});

describe('terminal.cwd', () => {
  it('falls back to HERMES_HOME/workspace with a note when it does not exist, instead of failing to start Python', async () => {
    for (const kernels of [false, true]) {
      const executor = executorWith(kernels, { terminal: { cwd: '/does/not/exist' } }, '');
      const result = await executor.execute({ sessionId: `missing-${kernels}`, code: 'import os\nprint(os.getcwd())' });
      expect(result.status).toBe('success');
      expect(result.output).toMatch(/\/workspace\n$/);
      expect(result.output).not.toBe(`${realpathSync(process.cwd())}\n`);
      expect(result.warning).toContain('terminal.cwd "/does/not/exist" is not a folder on this host');
      expect(result.warning).toContain(`run in ${result.output.trim()} instead`);
      expect(JSON.stringify(result)).not.toContain('ENOENT');
    }
  });

  it('expands ~ to the home folder', async () => {
    const home = tempDir('hermes-fake-home-');
    mkdirSync(join(home, 'project'));
    expect(resolveWorkingFolder('~', { fallback: '/' })).toEqual({ cwd: expect.any(String) });
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      expect(resolveWorkingFolder('~/project')).toEqual({ cwd: join(home, 'project') });
      const executor = executorWith(false, { terminal: { cwd: '~/project' } }, '');
      const result = await executor.execute({ sessionId: 'tilde', code: 'import os\nprint(os.getcwd())' });
      expect(result.output).toBe(`${realpathSync(join(home, 'project'))}\n`);
      expect(result.warning).toBeUndefined();
    } finally {
      process.env.HOME = saved;
    }
  });

  it('the environment manager falls back too, and warns in the log once', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    const home = tempDir('hermes-home-');
    const { config, paths } = loadConfig({ home, overrides: { terminal: { cwd: '/does/not/exist/either', backend: 'local' } } });
    const { manager } = await createEnvironmentManager({ config, paths, logger });
    try {
      const environment = await manager.environmentFor('s1');
      expect(environment.cwd).toBe(join(home, 'workspace'));
      const run = await environment.execute('pwd');
      expect(run).toMatchObject({ exit_code: 0, output: `${realpathSync(join(home, 'workspace'))}\n` });
      const warnings = lines.filter((line) => line.includes('/does/not/exist/either'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0])).toMatchObject({ level: 40, cwd: '/does/not/exist/either' });
    } finally {
      await manager.closeAll();
    }
  });
});

describe('the tool set', () => {
  const config = loadConfig({ home: tempDir('hermes-home-') }).config;

  it('the description lists exactly the enabled script tools and no terminal tool when it is off', () => {
    const some = executeCodeDescription(config, ['execute_code', 'read_file', 'web_search', 'delegate_task']);
    expect(some).toContain('  read_file(path, offset=1, limit=2000)');
    expect(some).toContain('  web_search(query, limit=5)');
    for (const absent of ['terminal', 'write_file(', 'search_files(', 'patch(', 'web_extract(', 'delegate_task(']) expect(some).not.toContain(absent);
    const all = executeCodeDescription(config);
    expect(all).toContain('use the terminal tool instead');
    expect(all).toContain('  terminal(command, timeout=None, workdir=None)');
    // A set sharing no tool with the script tools falls back to all of them, as in hermes-agent (parity-24.test.ts).
    const none = executeCodeDescription(config, ['execute_code']);
    expect(none).not.toContain('No tools can be called from scripts in this session');
    expect(none).toContain('  read_file(path');
  });

  it('the model gets the description of its own enabled tools (Tool.describe through toolSchemas)', () => {
    const executor = executorWith(false);
    const registry = new ToolRegistry([executeCodeTool(executor, config), ...scriptTools()]);
    const described = (enabled: string[]) => {
      const schema = toolSchemas(registry, new Set(enabled)).find((tool) => tool.type === 'function' && tool.function.name === 'execute_code');
      return schema?.type === 'function' ? (schema.function.description ?? '') : '';
    };
    expect(described(['execute_code', 'read_file'])).not.toContain('terminal');
    expect(described(['execute_code', 'read_file', 'terminal'])).toContain('  terminal(command');
  });

  it('the stub offers exactly the enabled tools', async () => {
    const executor = executorWith(false);
    const result = await executor.execute({
      sessionId: 'stub',
      enabledTools: ['search_files', 'web_extract'],
      code: 'import hermes_tools\nprint(hermes_tools.__all__)',
    });
    expect(result.output).toBe("['json_parse', 'shell_quote', 'retry', 'search_files', 'web_extract']\n");
  });

  it('a changed tool set restarts the session kernel with fresh stubs; the same set reuses it', async () => {
    const executor = executorWith(true);
    const offered = 'import hermes_tools\nprint(sorted(hermes_tools._AVAILABLE))';
    const first = await executor.execute({ sessionId: 'tools', enabledTools: ['read_file', 'terminal'], code: `kept = 1\n${offered}` });
    expect(first.output).toBe("['read_file', 'terminal']\n");
    const same = await executor.execute({ sessionId: 'tools', enabledTools: ['terminal', 'read_file'], code: `print(kept)\n${offered}` });
    expect(same).toMatchObject({ output: "1\n['read_file', 'terminal']\n", kernel: { reused: true, execution_count: 2 } });
    expect(same.warning).toBeUndefined();
    const narrower = await executor.execute({
      sessionId: 'tools',
      enabledTools: ['read_file'],
      code: `${offered}\ntry:\n    from hermes_tools import terminal\nexcept ImportError:\n    print("terminal is gone")\nprint("kept" in globals())`,
    });
    expect(narrower.output).toBe("['read_file']\nterminal is gone\nFalse\n");
    expect(narrower.kernel).toMatchObject({ mode: 'session', reused: false, execution_count: 1, state_reset: true });
    expect(narrower.warning).toBe(TOOLS_CHANGED_NOTE);
    const again = await executor.execute({ sessionId: 'tools', enabledTools: ['read_file'], code: offered });
    expect(again.kernel).toMatchObject({ reused: true, execution_count: 2 });
  });
});

describe('stray arguments', () => {
  const executor = executorWith(false);
  const config = loadConfig({ home: tempDir('hermes-home-') }).config;

  it('execute_code called with command= says: did you mean terminal?', async () => {
    const tool = executeCodeTool(executor, config);
    const result = (await tool.handler({ command: 'ls -la' }, makeToolContext())) as { error?: string };
    expect(result.error).toContain('execute_code takes Python source in "code", but was called with "command": did you mean terminal?');
    const off = (await tool.handler({ command: 'ls' }, makeToolContext({ enabledTools: ['execute_code', 'read_file'] }))) as { error?: string };
    expect(off.error).toContain('was called with "command"');
    expect(off.error).not.toContain('terminal');
  });

  it('terminal called with code= says: did you mean execute_code?', async () => {
    const tool = terminalTool();
    const result = (await tool.handler({ code: 'print(1)' }, makeToolContext())) as { error?: string };
    expect(result.error).toContain('terminal runs a shell command given in "command", but was called with "code": did you mean execute_code?');
    const off = (await tool.handler({ code: 'print(1)' }, makeToolContext({ enabledTools: ['terminal'] }))) as { error?: string };
    expect(off.error).toContain('was called with "code"');
    expect(off.error).not.toContain('execute_code');
    expect(await tool.handler({ command: 'echo fine' }, makeToolContext())).toEqual({ output: 'fine\n', exit_code: 0 });
  });
});

describe('terminal tool output', () => {
  it('strips ANSI and masks credentials (redact_secrets), and keeps them with redact_secrets: false', async () => {
    const tool = terminalTool();
    const token = ['xo', 'xb-', '1234567890-', 'abcdefABCDEF123456'].join('');
    const command = `printf '\\033[1mbold\\033[0m %s\\n' ${token}`;
    expect(await tool.handler({ command }, makeToolContext())).toEqual({ output: `bold xoxb-${REDACTED}\n`, exit_code: 0 });
    const raw = await tool.handler({ command }, makeToolContext({ config: { code_execution: { redact_secrets: false } } }));
    expect(raw).toEqual({ output: `bold ${token}\n`, exit_code: 0 });
  });
});

describe('a session kernel survives closed standard descriptors', () => {
  it('after os.close(1) and os.close(2) the next cell prints again, to stdout and stderr', async () => {
    const executor = executorWith(true);
    const closed = await executor.execute({ sessionId: 'fd', code: 'import os\nvalue = 41\nos.close(1)\nos.close(2)\nprint("into the void")' });
    expect(closed.kernel).toMatchObject({ mode: 'session' });
    const next = await executor.execute({ sessionId: 'fd', code: 'import sys, subprocess\nprint(value + 1)\nsubprocess.run(["echo", "child"])\nprint("err line", file=sys.stderr)\n1/0' });
    expect(next.kernel).toMatchObject({ reused: true, execution_count: 2 });
    expect(next.output).toMatch(/^42\nchild\nerr line\nTraceback/);
    expect(next.error).toBe('ZeroDivisionError: division by zero');
  });

  it('after sys.stdout.close() and a dup2 over fd 1 the next cell prints again', async () => {
    const executor = executorWith(true);
    await executor.execute({ sessionId: 'fd2', code: 'import os, sys\nf = open(os.devnull, "w")\nos.dup2(f.fileno(), 1)\nsys.stdout.close()' });
    const next = await executor.execute({ sessionId: 'fd2', code: 'print("back")' });
    expect(next).toMatchObject({ status: 'success', output: 'back\n', kernel: { reused: true } });
  });

  it('a tool call made while fd 1 was closed keeps working in the next cells', async () => {
    const executor = executorWith(true);
    // The RPC socket would land on the free fd 1, where the kernel later puts its pipe back.
    const first = await executor.execute({
      sessionId: 'fd3',
      code: 'import os, sys\nos.close(1)\nfrom hermes_tools import terminal\nr = terminal("echo one")\nprint(r["output"].strip(), file=sys.stderr)',
    });
    expect(first.status).toBe('success');
    const next = await executor.execute({ sessionId: 'fd3', code: 'from hermes_tools import terminal\nprint(terminal("echo two")["output"].strip())' });
    expect(next).toMatchObject({ status: 'success', output: 'two\n', tool_calls_made: 1 });
  });
});

describe('remote scripts', () => {
  it('get PYTHONUTF8=1 with the other Python settings', () => {
    const env = remoteScriptEnv('/tmp/hermes-rexec-x', []);
    expect(env).toMatchObject({ PYTHONUTF8: '1', PYTHONIOENCODING: 'utf-8', PYTHONUNBUFFERED: '1', HERMES_RPC_DIR: '/tmp/hermes-rexec-x' });
  });
});
