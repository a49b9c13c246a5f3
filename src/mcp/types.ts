import type { HermesConfig } from '../config/index.js';

/** One server's settings after defaults (`mcp_servers.<name>`). */
export type McpServerSettings = HermesConfig['mcp_servers'][string];

/** Where a server is: connecting, serving its tools, or down and waiting for its next try. */
export type McpServerState = 'starting' | 'ready' | 'failed' | 'stopped';

/** What /status and `hermes doctor` say about one server. */
export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: McpServerState;
  /** Tools the model gets from it (after tools.include/exclude). */
  tools: number;
  /** Whether scripts may call it (`scripts: true`). */
  scripts: boolean;
  /** Why it is not ready: the last start or the exit that took it down. */
  error?: string;
  /** Times it was started again after it failed or died. */
  restarts: number;
  /** When the next try starts (epoch ms), while it is failed. */
  retryAt?: number;
  /** The stdio server's process id while it runs. */
  pid?: number;
}

/** An MCP tool as scripts list it with `mcp.tools()`. */
export interface McpToolInfo {
  server: string;
  name: string;
  /** The name the model calls it by. */
  model_name: string;
  description: string;
  input_schema: Record<string, unknown>;
}
