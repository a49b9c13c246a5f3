import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { groupAlive } from '../../../src/environments/index.js';
import { terminalTool } from '../../../src/tools/builtin/index.js';
import { makeToolContext } from '../../helpers/tool-context.js';
import { processAlive, readPid } from '../../helpers/processes.js';

const terminal = terminalTool();


describe('terminal', () => {
  it('returns merged output and the exit code', async () => {
    const ctx = makeToolContext();
    const result = await terminal.handler({ command: 'echo out; echo err >&2; exit 3' }, ctx);
    expect(result).toEqual({ output: 'out\nerr\n', exit_code: 3 });
  });

  it('drops background, pty and other unknown arguments and runs in the foreground', async () => {
    const ctx = makeToolContext();
    const result = await terminal.handler({ command: 'sleep 0.2; echo done', background: true, pty: true, check_interval: 5 }, ctx);
    expect(result).toEqual({ output: 'done\n', exit_code: 0 });
  });

  it('runs in workdir, relative to the working folder, and says so when it is missing', async () => {
    const ctx = makeToolContext();
    await terminal.handler({ command: 'mkdir -p sub/dir' }, ctx);
    expect(await terminal.handler({ command: 'pwd', workdir: 'sub/dir' }, ctx)).toEqual({
      output: `${join(ctx.environment.cwd, 'sub/dir')}\n`,
      exit_code: 0,
    });
    const missing = (await terminal.handler({ command: 'pwd', workdir: 'nope' }, ctx)) as { output: string; exit_code: number };
    expect(missing.exit_code).toBe(1);
    expect(missing.output).toMatch(/cd: nope: No such file or directory/);
  });

  it('expands ~ in workdir with the shell', async () => {
    const ctx = makeToolContext({ sourceEnv: { PATH: process.env.PATH, HOME: '/tmp' } });
    expect(await terminal.handler({ command: 'pwd', workdir: '~' }, ctx)).toEqual({ output: '/tmp\n', exit_code: 0 });
  });

  it('a timeout kills the command and what it started', async () => {
    const ctx = makeToolContext();
    const result = (await terminal.handler({ command: 'sleep 1000 & echo $! > child; sleep 1000', timeout: 0.5 }, ctx)) as {
      output: string;
      exit_code: number;
    };
    expect(result.exit_code).toBe(124);
    expect(result.output).toContain('[Command timed out after 0.5s and was killed]');
    const child = readPid(join(ctx.environment.cwd, 'child'));
    expect(processAlive(child)).toBe(false);
  });

  it('uses terminal.timeout when no timeout is given', async () => {
    const ctx = makeToolContext({ config: { terminal: { timeout: 0.5 } } });
    const result = (await terminal.handler({ command: 'sleep 1000' }, ctx)) as { exit_code: number; output: string };
    expect(result.exit_code).toBe(124);
    expect(result.output).toContain('timed out after 0.5s');
  });

  it('an interrupt kills the process group and says why', async () => {
    const controller = new AbortController();
    const ctx = makeToolContext({ signal: controller.signal });
    const running = terminal.handler({ command: 'echo $$ > pgid; sleep 1000' }, ctx);
    setTimeout(() => controller.abort('user sent a new message'), 300);
    const result = (await running) as { output: string; exit_code: number };
    expect(result.output).toMatch(/\[execution interrupted — user sent a new message\]$/);
    expect(groupAlive(readPid(join(ctx.environment.cwd, 'pgid')))).toBe(false);
  });

  it('caps output at terminal.max_output_bytes keeping head and tail', async () => {
    const ctx = makeToolContext({ config: { terminal: { max_output_bytes: 2000 } } });
    const result = (await terminal.handler({ command: 'echo START; seq 1 100000; echo END' }, ctx)) as { output: string };
    expect(result.output.startsWith('START\n')).toBe(true);
    expect(result.output.endsWith('END\n')).toBe(true);
    expect(result.output).toMatch(/\[OUTPUT TRUNCATED - \d+ bytes omitted out of \d+ total\]/);
    expect(Buffer.byteLength(result.output)).toBeLessThan(2200);
  });

  it('children see the scrubbed environment', async () => {
    const ctx = makeToolContext({ sourceEnv: { PATH: process.env.PATH, MY_API_KEY: 'sekrit', HERMES_INTERNAL: 'x', LANG: 'C.UTF-8' } });
    const result = (await terminal.handler({ command: 'echo "[$MY_API_KEY][$HERMES_INTERNAL][$LANG]"' }, ctx)) as { output: string };
    expect(result.output).toBe('[][][C.UTF-8]\n');
  });

  it('bad arguments are an error, not a throw', async () => {
    const ctx = makeToolContext();
    expect(((await terminal.handler({}, ctx)) as { error: string }).error).toMatch(/^Invalid arguments for terminal: command/);
    expect(((await terminal.handler({ command: 'true', timeout: 'soon' }, ctx)) as { error: string }).error).toMatch(/timeout/);
  });
});
