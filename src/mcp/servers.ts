import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../shared/logger.js';
import type { Tool } from '../tools/types.js';
import type { ToolSource } from '../tools/registry.js';
import { McpConnection } from './connection.js';
import { mcpScriptTool } from './script-tool.js';
import { modelTool, offeredTools } from './tools.js';
import type { McpServerSettings, McpServerStatus } from './types.js';

export interface McpServersOptions {
  logger: Logger;
  /** Where `${NAME}` in headers and env values is looked up (the settings' environment, HERMES_HOME/.env under it); none when not given. */
  env?: NodeJS.ProcessEnv;
  /** Told every change of a server's state (starting, ready, failed, stopped) as it happens. */
  onChange?: (status: McpServerStatus) => void;
}

/** What /reload-mcp changed. */
export interface McpReloadSummary {
  started: string[];
  stopped: string[];
  restarted: string[];
  unchanged: string[];
}

/**
 * The configured MCP servers as a source of tools for the registry: `mcp__<server>__<tool>`
 * for the model (only servers that are ready, so a broken one takes nothing else down) and
 * the hidden `mcp` tool for scripts. Reloading starts, stops or restarts only the servers
 * whose settings changed.
 */
export class McpServers implements ToolSource {
  private readonly connections = new Map<string, McpConnection>();
  private readonly logger: Logger;
  private readonly env: NodeJS.ProcessEnv;
  private cached?: Tool[];
  private readonly hidden: Tool[];
  private readonly onChange?: (status: McpServerStatus) => void;

  constructor(options: McpServersOptions) {
    this.logger = options.logger.child({ component: 'mcp' });
    this.env = options.env ?? {};
    this.onChange = options.onChange;
    this.hidden = [mcpScriptTool(() => this.connections)];
  }

  /**
   * Starts `servers` (replacing what runs) and resolves once each has had its first try.
   * `underlay`: variables laid under the environment for the servers started now (`/reload-mcp`
   * passes HERMES_HOME/.env as it reads now, so a `${NAME}` added there is found).
   */
  async load(servers: Readonly<Record<string, McpServerSettings>>, underlay: Readonly<Record<string, string>> = {}): Promise<McpReloadSummary> {
    const env = Object.keys(underlay).length === 0 ? this.env : { ...underlay, ...this.env };
    const summary: McpReloadSummary = { started: [], stopped: [], restarted: [], unchanged: [] };
    const before = new Set(this.connections.keys());
    const stops: Promise<void>[] = [];
    for (const [name, connection] of this.connections) {
      const next = servers[name];
      if (next?.enabled && isDeepStrictEqual(next, connection.settings)) continue;
      stops.push(connection.stop());
      this.connections.delete(name);
      if (!next?.enabled) summary.stopped.push(name);
    }
    await Promise.all(stops);
    const starts: Promise<void>[] = [];
    for (const [name, settings] of Object.entries(servers)) {
      if (!settings.enabled) continue;
      if (this.connections.has(name)) {
        summary.unchanged.push(name);
        continue;
      }
      (before.has(name) ? summary.restarted : summary.started).push(name);
      const connection: McpConnection = new McpConnection(name, settings, env, this.logger, () => {
        this.cached = undefined;
        this.onChange?.(connection.status());
      });
      this.connections.set(name, connection);
      starts.push(connection.start());
    }
    this.cached = undefined;
    await Promise.all(starts);
    return summary;
  }

  /** The model's MCP tools: those of every ready server, after its include/exclude. */
  tools(): readonly Tool[] {
    if (this.cached) return this.cached;
    const tools: Tool[] = [];
    for (const connection of this.connections.values()) {
      for (const { tool, modelName } of offeredTools(connection)) tools.push(modelTool(connection, tool, modelName));
    }
    return (this.cached = tools);
  }

  /** The `mcp` tool scripts call (present while any server is configured). */
  scriptTools(): readonly Tool[] {
    return this.connections.size > 0 ? this.hidden : [];
  }

  status(): McpServerStatus[] {
    return [...this.connections.values()].map((connection) => connection.status());
  }

  /** One server's connection (tests kill its process through `status().pid`). */
  get(name: string): McpConnection | undefined {
    return this.connections.get(name);
  }

  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    this.cached = undefined;
    await Promise.all(all.map((connection) => connection.stop()));
  }
}
