import { afterAll, describe, expect, it } from 'vitest';
import { perCallExecutor } from './helpers.js';

const { executor } = perCallExecutor();
afterAll(() => executor.close());

describe('the execute_code result', () => {
  it('always has status, output, tool_calls_made and duration_seconds with two decimals', async () => {
    const result = await executor.execute({ sessionId: 's', code: 'print("hi")' });
    expect(Object.keys(result).slice(0, 4)).toEqual(['status', 'output', 'tool_calls_made', 'duration_seconds']);
    expect(result).toMatchObject({ status: 'success', output: 'hi\n', tool_calls_made: 0, exit_code: 0, stdout_truncated: false, stdout_bytes_total: 3 });
    expect(result.error).toBeUndefined();
    expect(result.duration_seconds).toBe(Number(result.duration_seconds.toFixed(2)));
  });

  it('shows the traceback and the exception line for a failing script', async () => {
    const result = await executor.execute({ sessionId: 's', code: 'print("before")\nundefined_name' });
    expect(result.status).toBe('error');
    expect(result.output).toMatch(/^before\nTraceback \(most recent call last\):/);
    expect(result.output).toContain("NameError: name 'undefined_name' is not defined");
    expect(result.error).toBe("Script exited with code 1: NameError: name 'undefined_name' is not defined");
  });

  it('refuses empty code and points to terminal for shell commands', async () => {
    for (const code of ['', '   \n\t']) {
      const result = await executor.execute({ sessionId: 's', code });
      expect(result.status).toBe('error');
      expect(result.error).toContain('"code" is required');
      expect(result.error).toContain('terminal');
    }
  });

  it('names the type it got for non-string code', async () => {
    expect((await executor.execute({ sessionId: 's', code: 42 })).error).toContain('got number');
    expect((await executor.execute({ sessionId: 's', code: ['print(1)'] })).error).toContain('got array');
    expect((await executor.execute({ sessionId: 's', code: null })).error).toContain('got null');
  });
});
