import { z } from 'zod';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { defineTool } from '../tools/define-tool.js';
import type { Tool, ToolOutcome } from '../tools/types.js';
import type { McpConnection, McpCallOutcome } from './connection.js';
import { modelToolName } from './names.js';
import type { McpServerSettings, McpToolInfo } from './types.js';

/** A description longer than this is cut: every turn sends it to the model. */
const MAX_DESCRIPTION = 1024;

/** Whether `tools.include` / `tools.exclude` let `tool` through. */
export function toolAllowed(settings: McpServerSettings, tool: string): boolean {
  const { include, exclude } = settings.tools;
  return (include.length === 0 || include.includes(tool)) && !exclude.includes(tool);
}

/** A server's tools that pass its filters, each with the model's name for it (the first of a repeated name kept). */
export function offeredTools(connection: McpConnection): { tool: McpTool; modelName: string }[] {
  const seen = new Set<string>();
  const out: { tool: McpTool; modelName: string }[] = [];
  for (const tool of connection.listTools()) {
    if (!toolAllowed(connection.settings, tool.name)) continue;
    const modelName = modelToolName(connection.name, tool.name);
    if (seen.has(modelName)) continue;
    seen.add(modelName);
    out.push({ tool, modelName });
  }
  return out;
}

/** How scripts see one tool (`mcp.tools()`). */
export function toolInfo(server: string, tool: McpTool, modelName: string): McpToolInfo {
  return {
    server,
    name: tool.name,
    model_name: modelName,
    description: tool.description ?? '',
    input_schema: tool.inputSchema as Record<string, unknown>,
  };
}

/**
 * What a tool call returns: the MCP result as it came (`content`, and `structuredContent`
 * when given). A result the server flagged `isError` also carries `error` (its text), so it
 * reads like every other tool's failure; a call that never got a result is `{ error }`.
 */
export function callResult(server: string, tool: string, outcome: McpCallOutcome): ToolOutcome<CallToolResult> {
  if ('error' in outcome) return { error: outcome.error };
  const { result } = outcome;
  if (!result.isError) return result;
  const text = (result.content ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
  return { ...result, error: `MCP tool ${server}/${tool} failed${text ? `: ${text}` : ''}` };
}

/** The server's input schema as function parameters: an object schema, without the `$schema` some endpoints refuse. */
function modelParameters(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return { ...rest, type: 'object' };
}

/** The model's tool for one MCP tool: its input schema as the parameters, the call passed through. */
export function modelTool(connection: McpConnection, tool: McpTool, modelName: string): Tool {
  const scripts = connection.settings.scripts ? ` Scripts can call it too: mcp.call(${JSON.stringify(connection.name)}, ${JSON.stringify(tool.name)}, **args).` : '';
  const description = `[MCP server ${connection.name}] ${tool.description ?? tool.title ?? tool.name}`.slice(0, MAX_DESCRIPTION) + scripts;
  return defineTool({
    name: modelName,
    description,
    // Any object of named arguments: the server checks them against its own schema.
    args: z.looseObject({}),
    parameters: modelParameters(tool.inputSchema),
    async run(args, ctx) {
      return callResult(connection.name, tool.name, await connection.call(tool.name, args, ctx.signal));
    },
  });
}

