import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, isToolError, ToolRegistry } from '../../src/tools/index.js';
import { executeCodeTool } from '../../src/execute-code/index.js';
import type { CodeExecutor, ExecuteCodeRequest, ExecuteCodeResult } from '../../src/execute-code/index.js';
import { defaultConfig } from '../../src/config/index.js';
import { makeToolContext } from '../helpers/tool-context.js';

/** An executor that records what it was asked and answers success: the tool's own checks are under test here. */
function recordingExecutor(): CodeExecutor & { requests: ExecuteCodeRequest[] } {
  const requests: ExecuteCodeRequest[] = [];
  return {
    requests,
    async execute(request) {
      requests.push(request);
      const result: ExecuteCodeResult = { status: 'success', output: `ran ${String(request.code).length} chars`, tool_calls_made: 0, duration_seconds: 0 };
      return result;
    },
    async resetSession() {},
    async close() {},
  };
}

const sum = defineTool({
  name: 'sum',
  description: 'Adds numbers',
  args: z.object({ numbers: z.array(z.number()), scale: z.number().default(1) }),
  async run({ numbers, scale }) {
    return { total: numbers.reduce((a, b) => a + b, 0) * scale };
  },
});

describe('typed tools', () => {
  it('dispatch with the tool itself gives its typed result; by name the same answer', async () => {
    const registry = new ToolRegistry([sum]);
    const ctx = makeToolContext();
    const typed = await registry.dispatch(sum, { numbers: [1, 2, 3] }, ctx);
    // Typed: `total` is read without a cast once the error case is ruled out.
    if (isToolError(typed)) throw new Error(typed.error);
    expect(typed.total).toBe(6);
    expect(await registry.dispatch('sum', { numbers: [1, 2], scale: 10 }, ctx)).toEqual({ total: 30 });
  });

  it('run takes typed arguments and still fills defaults and checks them', async () => {
    const ctx = makeToolContext();
    expect(await sum.run({ numbers: [4] }, ctx)).toEqual({ total: 4 });
    const bad = await sum.run(JSON.parse('{"numbers": "four"}') as { numbers: number[] }, ctx);
    expect(isToolError(bad) && bad.error).toMatch(/^Invalid arguments for sum: numbers: /);
  });

  it('dispatch refuses arguments that are not an object of named arguments, and unknown tools', async () => {
    const registry = new ToolRegistry([sum]);
    const ctx = makeToolContext();
    for (const args of [[1, 2], null, 'text', 5]) {
      expect(await registry.dispatch('sum', args, ctx)).toEqual({ error: 'Invalid arguments for sum: expected an object of named arguments' });
    }
    expect(await registry.dispatch('nope', {}, ctx)).toEqual({ error: "Unknown tool 'nope'. Available: sum" });
  });

  it('a tool whose handler throws answers { error } through dispatch', async () => {
    const thrower = defineTool({ name: 'boom', description: 'Throws', args: z.object({}), run: async (): Promise<{ never: true }> => { throw new Error('kaput'); } });
    expect(await new ToolRegistry([thrower]).dispatch(thrower, {}, makeToolContext())).toEqual({ error: 'boom failed: kaput' });
  });
});

describe('execute_code is a defined tool', () => {
  it('its parameters are the schema the model saw before: code (string, required) and reset (boolean)', () => {
    const tool = executeCodeTool(recordingExecutor(), defaultConfig());
    expect(tool.parameters).toMatchObject({
      type: 'object',
      properties: { code: { type: 'string', description: expect.stringContaining('Python source') }, reset: { type: 'boolean' } },
      required: ['code'],
    });
  });

  it('passes code and reset to the executor; a reset that is not true keeps the kernel', async () => {
    const executor = recordingExecutor();
    const tool = executeCodeTool(executor, defaultConfig());
    const ctx = makeToolContext({ sessionId: 'typed-1' });
    expect(await tool.handler({ code: 'print(1)', reset: true }, ctx)).toMatchObject({ status: 'success', output: 'ran 8 chars' });
    await tool.handler({ code: 'print(2)', reset: 'yes' }, ctx);
    expect(executor.requests.map((r) => [r.code, r.reset, r.sessionId])).toEqual([
      ['print(1)', true, 'typed-1'],
      ['print(2)', false, 'typed-1'],
    ]);
  });

  it('code that is not a string is refused before the executor, saying what code must be', async () => {
    const executor = recordingExecutor();
    const tool = executeCodeTool(executor, defaultConfig());
    const result = await tool.handler({ code: ['print(1)'] }, makeToolContext());
    expect(isToolError(result) && result.error).toMatch(/^Invalid arguments for execute_code: code: "code" must be a string of Python source, got \["print\(1\)"\]/);
    expect(executor.requests).toEqual([]);
  });
});
