import { afterAll, describe, expect, it } from 'vitest';
import { perCallExecutor } from './helpers.js';

/*
 * What a script can make the gateway hold over its RPC socket is bounded: connections, and
 * requests in flight on one connection. Each test is an attack by a real Python script
 * through the real executor; the flood of 20,000 connections against a running gateway is in
 * rpc-flood.test.ts.
 */
const few = perCallExecutor({ code_execution: { max_rpc_connections: 5 } });
const many = perCallExecutor({ code_execution: { max_tool_calls: 1000 } });
afterAll(async () => {
  await few.executor.close();
  await many.executor.close();
});

describe('RPC bounds', () => {
  it('refuses connections past code_execution.max_rpc_connections with a one-line JSON error, and serves again once some close', async () => {
    const result = await few.executor.execute({
      sessionId: 'cap',
      code: `
import os, socket, json, select
path = os.environ["HERMES_RPC_SOCKET"]
held, refusals = [], []
for i in range(12):
    s = socket.socket(socket.AF_UNIX); s.connect(path); held.append(s)
# Accepted connections say nothing; refused ones get one line, then the end of the stream.
poller = select.poll()
for s in held: poller.register(s, select.POLLIN)
ready = set()
while len(ready) < 7:
    for fd, _ in poller.poll():
        ready.add(fd); poller.unregister(fd)
for s in held:
    if s.fileno() in ready:
        f = s.makefile("rb"); refusals.append((json.loads(f.readline()), f.readline()))
open_ones = [s for s in held if s.fileno() not in ready]
print(len(open_ones), len(refusals))
print(refusals[0][0]["error"])
print(all(rest == b"" for _, rest in refusals))
from hermes_tools import read_file
print(read_file("nothing-here.txt").get("error", ""))
for s in open_ones: s.close()
# The gateway learns of the closes asynchronously: ask again until it has.
import time
with open("after.txt", "w") as f: f.write("served again")
for attempt in range(200):
    answer = read_file("after.txt")
    if "connection refused" not in answer.get("error", ""): break
    time.sleep(0.02)
print(answer.get("content", answer).strip())
`,
    });
    expect(result.status).toBe('success');
    const lines = result.output.trim().split('\n');
    expect(lines[0]).toBe('5 7');
    expect(lines[1]).toMatch(/^RPC connection refused: this execution already has 5 connections open \(code_execution\.max_rpc_connections\)/);
    expect(lines[2]).toBe('True');
    // hermes_tools' own connection was refused too, and the script was told why.
    expect(lines[3]).toMatch(/^hermes_tools: (RPC to the gateway failed: )?RPC connection refused: this execution already has 5 connections open/);
    expect(lines[4]).toBe('served again');
  });

  it('holds at most 64 MiB of unfinished requests across all connections: the one that goes past it is told and closed', async () => {
    const result = await many.executor.execute({
      sessionId: 'bytes',
      code: `
import os, socket, json
path = os.environ["HERMES_RPC_SOCKET"]
chunk = b'{"id": 1, "tool": "write_file", "args": {"content": "' + b"x" * (15 * 1024 * 1024)
held = []
for i in range(5):
    s = socket.socket(socket.AF_UNIX); s.connect(path); held.append(s)
    if i < 4:
        s.sendall(chunk)
    else:
        # The fifth frame does not fit: the gateway answers and hangs up before it is all sent.
        try:
            s.sendall(chunk)
        except OSError:
            pass
f = held[4].makefile("rb")
print(json.loads(f.readline())["error"])
print(f.readline() == b"")
`,
    });
    expect(result.status).toBe('success');
    expect(result.output.trim().split('\n')).toEqual([
      "Invalid RPC request: this execution's connections already hold 67108864 bytes of unfinished requests",
      'True',
    ]);
  }, 60_000);

  it('answers at most 64 requests in flight on one connection; the rest are refused at once, by id', async () => {
    const result = await many.executor.execute({
      sessionId: 'flight',
      code: `
import os, socket, json
path, token = os.environ["HERMES_RPC_SOCKET"], os.environ["HERMES_RPC_TOKEN"]
s = socket.socket(socket.AF_UNIX); s.connect(path)
wait = "while [ ! -e go ]; do sleep 0.05; done; echo done"
s.sendall(b"".join(
    (json.dumps({"id": i, "tool": "terminal", "args": {"command": wait}, "token": token}) + "\\n").encode()
    for i in range(100)))
f = s.makefile("rb")
refused = [json.loads(f.readline()) for _ in range(36)]
open("go", "w").close()
answered = [json.loads(f.readline()) for _ in range(64)]
print(sorted(r["id"] for r in refused) == list(range(64, 100)))
print(refused[0]["error"])
print(sorted(a["id"] for a in answered) == list(range(64)), all(a["result"]["output"].strip() == "done" for a in answered))
`,
    });
    expect(result.status).toBe('success');
    expect(result.output.trim().split('\n')).toEqual([
      'True',
      'Too many RPC requests in flight on this connection (at most 64): wait for an answer before sending more',
      'True True',
    ]);
    expect(result.tool_calls_made).toBe(64);
  }, 60_000);
});
