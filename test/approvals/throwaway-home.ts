import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { ToolContext } from '../../src/tools/index.js';

/**
 * Call at a test file's top level: before each test `makeHome()` makes a throwaway home and
 * process.env.HOME points at it (the gateway's own `~` and every child's HOME); after the test
 * HOME is what it was. `makeHome` may fill the home and set the file's own variables.
 */
export function throwawayHomeEachTest(makeHome: () => string): void {
  let realHome: string | undefined;
  beforeEach(() => {
    realHome = process.env.HOME;
    process.env.HOME = makeHome();
  });
  afterEach(() => {
    if (realHome === undefined) delete process.env.HOME;
    else process.env.HOME = realHome;
  });
}

/** The canaries a refused command must leave as they are: `marker` is authorized_keys' comment. */
export function writeCanaries(home: string, marker: string): void {
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'authorized_keys'), `ssh-ed25519 AAAA ${marker}\n`);
  writeFileSync(join(home, 'marker.txt'), 'still here\n');
  mkdirSync(join(home, 'projects', 'keep'), { recursive: true });
  writeFileSync(join(home, 'projects', 'keep', 'file.txt'), 'keep me\n');
}

/** Runs `code` as one execute_code call with `ctx`, on an executor of its own that is closed after. */
export async function runScript(code: string, ctx: ToolContext): Promise<{ output?: string; error?: string }> {
  const { createCodeExecutor, executeCodeTool } = await import('../../src/execute-code/index.js');
  const executor = createCodeExecutor({ loaded: { config: ctx.config, paths: ctx.paths, warnings: [] } });
  try {
    return (await executeCodeTool(executor, ctx.config).handler({ code }, ctx)) as { output?: string; error?: string };
  } finally {
    await executor.close();
  }
}

/** Python that runs each command through terminal() and prints the results as one JSON line. */
export const terminalScript = (commands: string[]): string =>
  [
    'import base64, json',
    'from hermes_tools import terminal',
    `commands = json.loads(base64.b64decode("${Buffer.from(JSON.stringify(commands)).toString('base64')}").decode())`,
    'print(json.dumps([terminal(c) for c in commands]))',
  ].join('\n');

/**
 * Sends `commands` through one script's terminal() calls, with nobody to ask, and expects every
 * one refused: a blocked one (by `verdicts`, the assessment's levels) as never run here, a risky one as unaskable.
 */
export async function expectTerminalRefusesEach(commands: string[], verdicts: string[], ctx: ToolContext): Promise<void> {
  const result = await runScript(terminalScript(commands), ctx);
  const answers = JSON.parse(result.output ?? 'null') as Array<{ output?: string; error?: string }>;
  expect(answers).toHaveLength(commands.length);
  answers.forEach((answer, i) => {
    const expected = verdicts[i] === 'blocked' ? /^terminal: blocked: .+never run here/ : /^terminal: not run: .+there is no one to ask here/;
    expect({ command: commands[i], error: answer.error, output: answer.output }).toEqual({ command: commands[i], error: expect.stringMatching(expected), output: undefined });
  });
}
