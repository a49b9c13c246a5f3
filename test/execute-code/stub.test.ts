import { afterAll, describe, expect, it } from 'vitest';
import { perCallExecutor } from './helpers.js';

const { executor } = perCallExecutor({ code_execution: { max_tool_calls: 3 } });
afterAll(() => executor.close());
const run = (code: string, enabledTools?: string[]) => executor.execute({ code, sessionId: 's', enabledTools });

describe('the hermes_tools stub', () => {
  it('returns a tool error as a dict with "error", not an exception', async () => {
    const result = await run(`
from hermes_tools import read_file
r = read_file("does/not/exist.txt")
print(type(r).__name__, "error" in r)
`);
    expect(result.output).toBe('dict True\n');
  });

  it('offers exactly the allowed tools and refuses the rest on import', async () => {
    const result = await run(`
import hermes_tools
print(sorted(n for n in hermes_tools._AVAILABLE))
for name in ("execute_code", "delegate_task", "terminal"):
    try:
        exec(f"from hermes_tools import {name}")
        print(name, "imported")
    except ImportError:
        print(name, "ImportError")
`, ['read_file', 'write_file', 'execute_code']);
    expect(result.output).toBe(
      "['read_file', 'write_file']\nexecute_code ImportError\ndelegate_task ImportError\nterminal ImportError\n",
    );
  });

  it('refuses a call to a tool that is not allowed, naming the available ones', async () => {
    const result = await run(`
from hermes_tools import _call
print(_call("execute_code", {"code": "print(1)"})["error"])
print(_call("terminal", {"command": "true"})["error"])
`, ['read_file', 'write_file']);
    expect(result.output).toBe(
      "Tool 'execute_code' is not available in execute_code. Available: read_file, write_file\n" +
        "Tool 'terminal' is not available in execute_code. Available: read_file, write_file\n",
    );
    expect(result.tool_calls_made).toBe(0);
  });

  it('stops at the configured call budget with the exact message', async () => {
    const result = await run(`
from hermes_tools import write_file
for i in range(5):
    r = write_file(f"f{i}.txt", "x")
    print(r.get("error", "ok"))
`);
    expect(result.output).toBe(
      'ok\nok\nok\n' +
        'Tool call limit reached (3). No more tool calls allowed in this execution.\n'.repeat(2),
    );
    expect(result.tool_calls_made).toBe(3);
  });

  it('has json_parse (tolerating a BOM), shell_quote and retry', async () => {
    const result = await run(`
from hermes_tools import json_parse, shell_quote, retry
print(json_parse("\\ufeff{\\"a\\": 1}"), json_parse(b"\\xef\\xbb\\xbf[2]"))
print(shell_quote("it's $HOME"))
calls = []
def flaky():
    calls.append(1)
    return {"error": "busy"} if len(calls) < 3 else {"ok": True}
print(retry(flaky, max_attempts=3, delay=0.01), len(calls))
print(retry(lambda: {"error": "always"}, max_attempts=2, delay=0.01))
`);
    expect(result.output).toBe(`{'a': 1} [2]\n'it'"'"'s $HOME'\n{'ok': True} 3\n{'error': 'always'}\n`);
  });
});
