export { McpServers, type McpServersOptions, type McpReloadSummary } from './servers.js';
export { McpConnection, RETRY_MIN_MS, RETRY_MAX_MS, type McpCallOutcome } from './connection.js';
export { MCP_SCRIPT_TOOL, SCRIPT_MCP_REASON } from './script-tool.js';
export { MCP_TOOL_PREFIX, MAX_TOOL_NAME, modelToolName } from './names.js';
export { reloadMcpServers, mcpStatusLines } from './reload.js';
export type { McpServerSettings, McpServerState, McpServerStatus, McpToolInfo } from './types.js';
