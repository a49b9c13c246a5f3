import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findExecutable } from '../../src/environments/index.js';
import { type Agent } from '../../src/agent/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { SCRIPT_MCP_REASON } from '../../src/mcp/index.js';
import { harness, toolMessages, type Harness } from '../agent/harness.js';
import { everythingStdio, filesystemStdio } from './servers.js';
import { tempFoldersPerTest } from '../helpers/temp-folders.js';
import { releaseAfterEach } from '../helpers/release-after-each.js';

/*
 * Scripts call MCP servers through `from hermes_tools import mcp`, over the same RPC as the
 * other script tools: real Python, the real reference servers, the agent createAgent wires.
 */
const hasPython = findExecutable('python3') !== undefined;
if (!hasPython && process.env.CI !== 'true') console.log('test/mcp/scripts: python3 not found; skipping');

const temp = tempFoldersPerTest();
const tempFolder = () => temp('hermes-mcp-script-');
let h: Harness;
const keep = releaseAfterEach();

/** A fresh harness (cleaned up after the test) and its real agent with `overrides`. */
async function realAgent(overrides: ConfigOverrides): Promise<Agent> {
  h = keep(await harness(), (made) => made.cleanup());
  return h.realAgent(overrides);
}

/** server-everything for scripts, asking no approval. */
const everythingForScripts = (more: Record<string, unknown> = {}) => ({ everything: everythingStdio({ scripts: true, script_approval: 'off', ...more }) });

interface CodeResult {
  status: string;
  output: string;
  tool_calls_made: number;
  error?: string;
}

/** Runs `source` as the model's one execute_code call and returns its result. */
async function runScript(running: Agent, source: string, requestApproval?: (request: ApprovalRequest) => Promise<boolean>): Promise<CodeResult> {
  h.fake.enqueue({ toolCalls: [{ id: 'code', name: 'execute_code', arguments: { code: source } }] }, { text: 'done' });
  await running.runTurn({ sessionKey: `web:mcp-script-${h.fake.requests.length}`, text: 'run it', ...(requestApproval ? { requestApproval } : {}) });
  const request = h.fake.requests.at(-1)!;
  const message = toolMessages(request.body).find((m) => m.tool_call_id === 'code');
  return JSON.parse(message!.content) as CodeResult;
}

/** Runs `source` on a fresh agent with server-everything for scripts. */
async function scriptOnEverything(source: string): Promise<CodeResult> {
  return runScript(await realAgent({ mcp_servers: everythingForScripts() } as ConfigOverrides), source);
}

describe.runIf(hasPython || process.env.CI === 'true')('MCP from execute_code scripts', () => {
  it('a script makes ten MCP calls in one execute_code: one model turn, ten calls counted, results in the MCP content shape', async () => {
    const result = await scriptOnEverything(
      'from hermes_tools import mcp\n' +
        'total = 0\n' +
        'for i in range(10):\n' +
        '    r = mcp.call("everything", "get-sum", a=i, b=100)\n' +
        '    total += int(r["content"][0]["text"].split(" is ")[1].rstrip("."))\n' +
        'print("total", total)\n',
    );
    expect(result).toMatchObject({ status: 'success', tool_calls_made: 10 });
    expect(result.output).toContain('total 1045');
    // The model was asked twice in all: the execute_code call, then the answer.
    expect(h.fake.requests).toHaveLength(2);
  }, 60_000);

  it('mcp.tools() lists the tools of servers enabled for scripts, with their input schemas', async () => {
    const running = await realAgent({ mcp_servers: everythingForScripts({ tools: { include: ['echo', 'get-sum'] } }) } as ConfigOverrides);
    const result = await runScript(
      running,
      'from hermes_tools import mcp\nimport json\n' +
        'tools = mcp.tools()\n' +
        'print(json.dumps(sorted((t["server"], t["name"], t["model_name"], sorted(t["input_schema"].get("properties", {}))) for t in tools)))\n',
    );
    expect(result.status).toBe('success');
    expect(JSON.parse(result.output)).toEqual([
      ['everything', 'echo', 'mcp__everything__echo', ['message']],
      ['everything', 'get-sum', 'mcp__everything__get-sum', ['a', 'b']],
    ]);
  });

  it('MCP calls count in the script budget: past code_execution.max_tool_calls a call gets the limit error', async () => {
    const running = await realAgent({
      code_execution: { max_tool_calls: 3 },
      mcp_servers: everythingForScripts(),
    } as ConfigOverrides);
    const result = await runScript(
      running,
      'from hermes_tools import mcp\n' + 'for i in range(4):\n' + '    r = mcp.call("everything", "echo", message=str(i))\n' + '    print(i, r.get("error") or r["content"][0]["text"])\n',
    );
    expect(result.tool_calls_made).toBe(3);
    expect(result.output).toContain('2 Echo: 2');
    expect(result.output).toMatch(/3 Tool call limit reached \(3\)/);
  });

  it('errors come back as {"error": …}: an unknown server, an unknown tool, bad arguments', async () => {
    const result = await scriptOnEverything(
      'from hermes_tools import mcp\n' +
        'print("A", mcp.call("nowhere", "echo", message="x")["error"])\n' +
        'print("B", mcp.call("everything", "no-such-tool")["error"])\n' +
        'print("C", mcp.call("everything", "get-sum", a="one", b=2)["error"])\n',
    );
    expect(result.status).toBe('success');
    expect(result.output).toMatch(/^A mcp\.call: no MCP server named "nowhere"; configured: everything/m);
    expect(result.output).toMatch(/^B .*no-such-tool/m);
    expect(result.output).toMatch(/^C .*get-sum/m);
  });

  it('attack: server-filesystem cannot be used from a script while its scripts setting is off, by mcp.call or by its tool name over the RPC', async () => {
    const folder = tempFolder();
    writeFileSync(join(folder, 'secret.txt'), 'TOP-SECRET-CONTENT\n');
    const running = await realAgent({ mcp_servers: { files: filesystemStdio(folder) } } as ConfigOverrides);
    expect(running.toolNames()).toContain('mcp__files__read_text_file');
    const path = JSON.stringify(join(folder, 'secret.txt'));
    const result = await runScript(
      running,
      'import hermes_tools\nfrom hermes_tools import mcp\n' +
        `print("A", mcp.call("files", "read_text_file", path=${path}))\n` +
        `print("B", mcp.tools("files"))\n` +
        `print("C", hermes_tools._call("mcp__files__read_text_file", {"path": ${path}}))\n`,
    );
    expect(result.output).not.toContain('TOP-SECRET-CONTENT');
    expect(result.output).toMatch(/^A \{'error': 'mcp\.call: MCP server "files" is not enabled for scripts; set mcp_servers\.files\.scripts: true/m);
    expect(result.output).toMatch(/^B \{'error': .*not enabled for scripts/m);
    expect(result.output).toMatch(/^C \{'error': "Tool 'mcp__files__read_text_file' is not available in execute_code/m);
  });

  it('approvals: with script_approval ask a script\'s MCP call waits for the user (server and tool named), runs when approved, is refused when denied or when nobody can be asked', async () => {
    const folder = tempFolder();
    writeFileSync(join(folder, 'note.txt'), 'note-body\n');
    const running = await realAgent({ mcp_servers: { files: filesystemStdio(folder, { scripts: true }) } } as ConfigOverrides);
    const source = `from hermes_tools import mcp\nr = mcp.call("files", "read_text_file", path=${JSON.stringify(join(folder, 'note.txt'))})\nprint(r.get("error") or r["content"][0]["text"])\n`;
    const asked: ApprovalRequest[] = [];
    const approved = await runScript(running, source, async (request) => (asked.push(request), true));
    expect(approved.output).toContain('note-body');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ kind: 'script', reason: SCRIPT_MCP_REASON });
    expect(asked[0]!.command).toContain('mcp.call("files", "read_text_file"');

    const denied = await runScript(running, source, async () => false);
    expect(denied.output).not.toContain('note-body');
    expect(denied.output).toContain('mcp.call: not run: the user did not approve it');

    const nobody = await runScript(running, source);
    expect(nobody.output).not.toContain('note-body');
    expect(nobody.output).toContain("which needs the user's approval, and there is no one to ask here");
  });
});
