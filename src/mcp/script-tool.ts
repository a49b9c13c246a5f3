import { z } from 'zod';
import { guardScript } from '../approvals/lazy-guard.js';
import { defineTool } from '../tools/define-tool.js';
import type { Tool, ToolContext } from '../tools/types.js';
import type { McpConnection } from './connection.js';
import { callResult, offeredTools, toolAllowed, toolInfo } from './tools.js';
import type { McpToolInfo } from './types.js';

/** The RPC name `hermes_tools.mcp` calls; scripts reach it, the model never sees it. */
export const MCP_SCRIPT_TOOL = 'mcp';

/** Why a script's MCP call waits for the user: one reason, so "this session" covers the tool's later calls. */
export const SCRIPT_MCP_REASON = 'a script calls an MCP tool, whose effects the gateway cannot judge';

const args = z.discriminatedUnion('op', [
  z.object({ op: z.literal('call'), server: z.string(), tool: z.string(), arguments: z.record(z.string(), z.unknown()).default({}) }),
  z.object({ op: z.literal('tools'), server: z.string().optional() }),
]);

/**
 * The one tool behind `from hermes_tools import mcp`: `mcp.call(server, tool, **args)` and
 * `mcp.tools(server=None)`. Only servers with `scripts: true` answer; a call from a script
 * is a risky request to the approvals policy (asked once per server and tool with
 * `script_approval: ask`, refused where nobody can be asked), and goes through the same
 * connection and filters as the model's calls.
 */
export function mcpScriptTool(servers: () => ReadonlyMap<string, McpConnection>): Tool {
  return defineTool({
    name: MCP_SCRIPT_TOOL,
    description: 'MCP servers enabled for scripts: call one of their tools, or list them.',
    args: z.object({ op: z.enum(['call', 'tools']) }).passthrough(),
    async run(raw, ctx) {
      const parsed = args.safeParse(raw);
      if (!parsed.success) return { error: `mcp: invalid request: ${parsed.error.issues.map((issue) => issue.message).join('; ')}` };
      const request = parsed.data;
      const all = servers();
      if (request.op === 'tools') return listTools(all, request.server);
      const connection = all.get(request.server);
      const refused = refusal(all, request.server, request.tool, connection);
      if (refused || !connection) return { error: refused };
      if (connection.settings.script_approval === 'ask') {
        const verdict = await askFirst(request.server, request.tool, ctx);
        if (!verdict.allowed) return { error: verdict.error };
      }
      return callResult(request.server, request.tool, await connection.call(request.tool, request.arguments, ctx.signal));
    },
  });
}

/** Why a script may not call `tool` of `server`, or undefined when it may. */
function refusal(all: ReadonlyMap<string, McpConnection>, server: string, tool: string, connection: McpConnection | undefined): string | undefined {
  const names = [...all.keys()].sort();
  if (!connection) return `mcp.call: no MCP server named "${server}"; configured: ${names.join(', ') || 'none'} (mcp_servers in config.yaml)`;
  if (!connection.settings.scripts) {
    return `mcp.call: MCP server "${server}" is not enabled for scripts; set mcp_servers.${server}.scripts: true in config.yaml (then /reload-mcp) to let scripts call it`;
  }
  if (!toolAllowed(connection.settings, tool)) return `mcp.call: tool "${tool}" of MCP server "${server}" is left out by mcp_servers.${server}.tools (include/exclude)`;
  return undefined;
}

function listTools(all: ReadonlyMap<string, McpConnection>, server: string | undefined): McpToolInfo[] | { error: string } {
  if (server !== undefined && !all.get(server)?.settings.scripts) {
    return { error: refusal(all, server, '', all.get(server)) ?? `mcp.tools: no MCP server named "${server}"` };
  }
  const out: McpToolInfo[] = [];
  for (const connection of all.values()) {
    if (!connection.settings.scripts || (server !== undefined && connection.name !== server)) continue;
    for (const { tool, modelName } of offeredTools(connection)) out.push(toolInfo(connection.name, tool, modelName));
  }
  return out;
}

/** The approvals policy for one script call: the request names the server and tool, not the arguments. */
function askFirst(server: string, tool: string, ctx: ToolContext) {
  // Shown as Python (approval prompts put a script's request in a python block).
  return guardScript(`mcp.call(${JSON.stringify(server)}, ${JSON.stringify(tool)}, ...)  # from an execute_code script`, SCRIPT_MCP_REASON, {
    mode: ctx.config.approvals.mode,
    requestApproval: ctx.requestApproval,
    signal: ctx.signal,
    logger: ctx.logger,
    label: 'mcp.call',
  });
}
