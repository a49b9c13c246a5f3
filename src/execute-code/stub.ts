import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/package-root.js';

/** A function the stub offers: its Python parameter list and a one-line doc. */
export interface StubFunction {
  name: string;
  /** e.g. `path, offset=1, limit=2000`; `**kwargs` is accepted and not sent. */
  params: string;
  doc: string;
}

let base: string | undefined;

/** The transport and helpers every stub shares (python/hermes_tools_base.py). */
function stubBase(): string {
  return (base ??= readFileSync(join(packageRoot(), 'src/execute-code/python/hermes_tools_base.py'), 'utf8'));
}

/** Names of the parameters in a Python parameter list, without `*args`/`**kwargs`. */
export function parameterNames(params: string): string[] {
  return params
    .split(',')
    .map((part) => part.trim().split('=')[0].trim())
    .filter((name) => name !== '' && !name.startsWith('*'));
}

let mcpPart: string | undefined;

/** `hermes_tools.mcp` (python/hermes_tools_mcp.py): call and list the tools of MCP servers enabled for scripts. */
function stubMcp(): string {
  return (mcpPart ??= readFileSync(join(packageRoot(), 'src/execute-code/python/hermes_tools_mcp.py'), 'utf8'));
}

/** The text of `hermes_tools.py` offering exactly `functions`, and `mcp` when `options.mcp`. */
export function renderStub(functions: readonly StubFunction[], options: { mcp?: boolean } = {}): string {
  const names = [...functions.map((fn) => fn.name), ...(options.mcp ? ['mcp'] : [])];
  const lines = [stubBase(), `_AVAILABLE = ${JSON.stringify(names)}`, `__all__ += _AVAILABLE`, ''];
  if (options.mcp) lines.push(stubMcp(), '');
  for (const fn of functions) {
    const args = parameterNames(fn.params).map((name) => `${JSON.stringify(name)}: ${name}`);
    lines.push(
      `def ${fn.name}(${fn.params}):`,
      `    ${JSON.stringify(fn.doc)}`,
      `    return _call(${JSON.stringify(fn.name)}, {${args.join(', ')}})`,
      '',
    );
  }
  return lines.join('\n');
}
