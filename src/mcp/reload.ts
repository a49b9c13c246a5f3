import { defaultConfig, readConfigFile, readDotEnv, type HermesPaths } from '../config/index.js';
import { errorMessage } from '../shared/errors.js';
import type { McpReloadSummary, McpServers } from './servers.js';

/**
 * `/reload-mcp`: reads `mcp_servers` from config.yaml again (and .env under the servers'
 * environment, for `${NAME}` values it newly names) and applies it. An unreadable or invalid
 * file changes nothing; the reply says why.
 */
export async function reloadMcpServers(servers: McpServers, paths: Pick<HermesPaths, 'config' | 'env'>): Promise<string> {
  let summary: McpReloadSummary;
  try {
    // A blank file names no server, as at start.
    const config = readConfigFile(paths.config) ?? defaultConfig();
    summary = await servers.load(config.mcp_servers, readDotEnv(paths.env));
  } catch (error) {
    return `MCP servers not reloaded: ${errorMessage(error)}. Nothing was changed.`;
  }
  const parts = [
    summary.started.length > 0 ? `started ${summary.started.join(', ')}` : '',
    summary.restarted.length > 0 ? `restarted ${summary.restarted.join(', ')}` : '',
    summary.stopped.length > 0 ? `stopped ${summary.stopped.join(', ')}` : '',
    summary.unchanged.length > 0 ? `unchanged ${summary.unchanged.join(', ')}` : '',
  ].filter(Boolean);
  const head = parts.length > 0 ? `MCP servers reloaded: ${parts.join('; ')}.` : 'MCP servers reloaded: none is configured.';
  const lines = mcpStatusLines(servers.status());
  return lines.length > 0 ? `${head}\n${lines.join('\n')}` : head;
}

/** One line per server for /status, /reload-mcp and `hermes doctor`. */
export function mcpStatusLines(statuses: ReturnType<McpServers['status']>, now = Date.now()): string[] {
  return statuses.map((server) => {
    const scripts = server.scripts ? ', scripts' : '';
    const restarts = server.restarts > 0 ? `, restarted ${server.restarts}×` : '';
    if (server.state === 'ready') return `MCP ${server.name}: ready (${server.transport}, ${server.tools} tools${scripts}${restarts})`;
    if (server.state === 'starting') return `MCP ${server.name}: starting (${server.transport}${restarts})`;
    if (server.state === 'stopped') return `MCP ${server.name}: stopped`;
    const retry = server.retryAt ? `; next try in ${Math.max(0, Math.ceil((server.retryAt - now) / 1000))} s` : '';
    return `MCP ${server.name}: failed (${server.transport}${restarts}): ${server.error ?? 'unknown error'}${retry}`;
  });
}
