import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hermes, hermesExecCtrlC } from '../helpers/hermes-process.js';
import { alive } from '../execute-code/helpers.js';

const home = () => mkdtempSync(join(tmpdir(), 'hermes-exec-cli-'));

describe('hermes exec', () => {
  it('runs a script file through execute_code and exits 0 on success', async () => {
    const dir = home();
    const script = join(dir, 'job.py');
    writeFileSync(script, 'from hermes_tools import write_file, read_file\nwrite_file("out.txt", "via rpc")\nprint(read_file("out.txt")["content"])\n');
    const run = await hermes(dir, ['exec', script]);
    expect(run).toMatchObject({ code: 0, stdout: 'via rpc\n' });
  });

  it('reads the script from standard input and prints the result object with --json', async () => {
    const run = await hermes(home(), ['exec', '-', '--json'], { stdin: 'print(6 * 7)\n' });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'success', output: '42\n', tool_calls_made: 0 });
    expect(typeof result.duration_seconds).toBe('number');
  });

  it('exits 1 when the script fails, and applies --timeout, --mode and --max-tool-calls', async () => {
    const failing = await hermes(home(), ['exec', '-'], { stdin: 'raise ValueError("nope")\n' });
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('ValueError: nope');

    const slow = await hermes(home(), ['exec', '-', '--timeout', '2', '--json'], { stdin: 'import time\ntime.sleep(60)\n' });
    expect(slow.code).toBe(1);
    expect(JSON.parse(slow.stdout)).toMatchObject({ status: 'timeout', error: 'Script timed out after 2s and was killed.' });

    const strict = await hermes(home(), ['exec', '-', '--mode', 'strict'], { stdin: 'import os\nprint("hermes_tools.py" in os.listdir("."))\n' });
    expect(strict.stdout).toBe('True\n');

    const budget = await hermes(home(), ['exec', '-', '--max-tool-calls', '1'], {
      stdin: 'from hermes_tools import read_file\nread_file("a")\nprint(read_file("a")["error"])\n',
    });
    expect(budget.stdout).toBe('Tool call limit reached (1). No more tool calls allowed in this execution.\n');
  }, 120_000); // four CLI runs, one of them waiting out a timeout and its grace

  it('-c CODE runs the code as python -c does; a file argument that is no file says so and suggests -c', async () => {
    const dir = home();
    const inline = await hermes(dir, ['exec', '-c', 'import sys; print(6 * 7, file=sys.stdout)']);
    expect(inline).toMatchObject({ code: 0, stdout: '42\n' });
    const long = await hermes(dir, ['exec', '--command', 'print("long form")']);
    expect(long).toMatchObject({ code: 0, stdout: 'long form\n' });

    const mistaken = await hermes(dir, ['exec', 'print(1)']);
    expect(mistaken.code).toBe(1);
    expect(mistaken.stdout).toBe('');
    expect(mistaken.stderr).toContain('no file named "print(1)"');
    expect(mistaken.stderr).toContain("hermes exec -c 'print(1)'");
    expect(mistaken.stderr).not.toMatch(/ENOENT|at .*\.js/);

    const both = await hermes(dir, ['exec', '-c', 'print(1)', 'job.py']);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('not both');
  }, 60_000);

  it('refuses bad flags with a clear message', async () => {
    const run = await hermes(home(), ['exec', '-', '--mode', 'loose'], { stdin: 'print(1)' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--mode: expected project or strict, got "loose"');
  });

  it('interrupts the script on Ctrl-C with the reason "interrupted by user"', async () => {
    const { code, result, sleeper } = await hermesExecCtrlC(home(), 1000);
    expect(code).toBe(1);
    expect(result.status).toBe('interrupted');
    expect(result.output).toBe('[execution interrupted — interrupted by user]');
    expect(alive(sleeper)).toBe(false);
  }, 60_000);
});
