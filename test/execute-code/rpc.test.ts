import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perCallExecutor } from './helpers.js';

const { executor } = perCallExecutor();
afterAll(() => executor.close());
const run = (code: string, extra: Record<string, unknown> = {}) => executor.execute({ code, sessionId: 's1', ...extra });

describe('execute_code RPC', () => {
  it('passes a short socket path with mode 0600 and a per-execution token to the child', async () => {
    const result = await run(`
import os, stat
path = os.environ["HERMES_RPC_SOCKET"]
print(len(path) < 100, oct(stat.S_IMODE(os.stat(path).st_mode)), stat.S_ISSOCK(os.stat(path).st_mode))
print(oct(stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode)))
print(len(os.environ["HERMES_RPC_TOKEN"]) >= 32)
`);
    expect(result.status).toBe('success');
    expect(result.output).toBe('True 0o600 True\n0o700\nTrue\n');
  });

  it('answers ten threads of one script calling at once, each with its own result', async () => {
    const result = await run(`
import threading
from hermes_tools import write_file, read_file
results = {}
def work(i):
    write_file(f"t{i}.txt", f"content {i}")
    results[i] = read_file(f"t{i}.txt")["content"]
threads = [threading.Thread(target=work, args=(i,)) for i in range(10)]
[t.start() for t in threads]
[t.join() for t in threads]
print(all(results[i].strip() == f"content {i}" for i in range(10)), len(results))
`);
    expect(result.output).toBe('True 10\n');
    expect(result.tool_calls_made).toBe(20);
  });

  it('refuses a wrong token, a malformed frame and a frame over 16 MiB', async () => {
    const result = await run(`
import os, socket, json
def raw(payload):
    s = socket.socket(socket.AF_UNIX); s.connect(os.environ["HERMES_RPC_SOCKET"])
    s.sendall(payload); f = s.makefile("rb"); line = f.readline(); s.close()
    return json.loads(line)
print(raw(b'{"id": 1, "tool": "read_file", "args": {"path": "x"}, "token": "wrong"}\\n'))
print(raw(b'{not json\\n')["error"].startswith("Invalid RPC request:"))
print(raw(b'[1, 2]\\n'))
big = b'{"id": 2, "tool": "read_file", "args": {"p": "' + b"x" * (16 * 1024 * 1024 + 10) + b'"}}\\n'
print(raw(big)["error"])
`);
    expect(result.status).toBe('success');
    const lines = result.output.trim().split('\n');
    expect(lines[0]).toBe("{'id': 1, 'error': 'Unauthorized RPC request'}");
    expect(lines[1]).toBe('True');
    expect(lines[2]).toBe("{'error': 'Invalid RPC request: expected a JSON object'}");
    expect(lines[3]).toMatch(/^Invalid RPC request: frame larger than 16777216 bytes/);
    expect(result.tool_calls_made).toBe(0);
  });

  it('works over the TCP transport on 127.0.0.1 when configured', async () => {
    const tcp = perCallExecutor({ code_execution: { rpc_transport: 'tcp' } });
    const result = await tcp.executor.execute({
      sessionId: 's',
      code: `
import os
from hermes_tools import write_file, read_file
write_file("a.txt", "over tcp")
print(os.environ["HERMES_RPC_SOCKET"].startswith("tcp://127.0.0.1:"), read_file("a.txt")["content"])
`,
    });
    expect(result.output).toBe('True over tcp\n');
    expect(result.tool_calls_made).toBe(2);
  });

  it('leaves no staging folder or socket behind, after success, failure, interrupt and timeout', async () => {
    // A private temp folder, so other tests' executions do not show up here.
    const temp = mkdtempSync(join(tmpdir(), 'hermes-staging-check-'));
    const quick = perCallExecutor({ code_execution: { timeout: 2, kill_grace: 0.5 } });
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    try {
      const seen = await run('import os; print(os.path.dirname(os.environ["HERMES_RPC_SOCKET"]))');
      expect(seen.output.startsWith(temp)).toBe(true);
      await run('raise SystemExit(3)');
      await executor.execute({ code: 'import time; time.sleep(30)', sessionId: 's', signal: AbortSignal.timeout(2000) });
      expect((await quick.executor.execute({ code: 'import time; time.sleep(30)', sessionId: 's' })).status).toBe('timeout');
      expect(readdirSync(temp)).toEqual([]);
    } finally {
      process.env.TMPDIR = saved;
    }
  });
});
