import { withOverrides, type ConfigOverrides, type LoadedConfig } from '../config/index.js';
import { createEnvironmentManager } from '../environments/index.js';
import { createCodeExecutor } from '../execute-code/index.js';
import { createLogger } from '../shared/logger.js';
import { ToolRegistry } from '../tools/registry.js';
import { scriptTools } from '../tools/builtin/index.js';
import { McpServers } from '../mcp/index.js';
import { Agent, type AgentOptions } from './agent.js';

/** What the caller may supply instead of the real pieces; `config` is laid over the loaded configuration. */
export type CreateAgentOverrides = Partial<Omit<AgentOptions, 'config' | 'paths'>> & { config?: ConfigOverrides };

/**
 * Wires the real agent: the logger (HERMES_HOME/logs/agent.log), the built-in tools, the
 * configured terminal backend (plugins included), the execute_code executor on the same
 * registry, and state.db. `close()` on the agent releases all of them.
 */
export async function createAgent(loaded: LoadedConfig, overrides: CreateAgentOverrides = {}): Promise<Agent> {
  const config = withOverrides(loaded.config, overrides.config, loaded.paths.config);
  const paths = loaded.paths;
  // API keys, skill and MCP `${NAME}` variables: the settings' environment unless the caller gives one.
  const env = overrides.env ?? loaded.env ?? {};
  const effective: LoadedConfig = { ...loaded, config, env };
  const logger = overrides.logger ?? createLogger({ file: paths.logFile, level: config.logging.level, env });
  const registry = overrides.registry ?? new ToolRegistry(scriptTools());
  // MCP servers join the registry as a live source (so /reload-mcp can add some later too).
  const mcp = overrides.mcp ?? new McpServers({ logger, env });
  registry.attach(mcp);

  let environmentFor = overrides.environmentFor;
  let releaseEnvironment = overrides.releaseEnvironment;
  const backendDescription = overrides.backendDescription;
  let closeEnvironments: (() => Promise<void>) | undefined;
  let backends: AgentOptions['backends'];
  if (!environmentFor) {
    const { manager } = await createEnvironmentManager({ config, paths, logger });
    environmentFor = manager.environmentFor;
    releaseEnvironment = (sessionId) => manager.release(sessionId);
    closeEnvironments = () => manager.closeAll();
    const { others, warning } = manager.backends;
    backends = { platformBackend: others.name, ...(warning ? { isolationWarning: warning } : {}) };
    if (warning) logger.warn({ backend: others.name }, warning);
  }
  const executor = overrides.executor ?? createCodeExecutor({ loaded: effective, registry, logger });
  const onClose = async () => {
    await overrides.onClose?.();
    await closeEnvironments?.();
    if (!overrides.mcp) await mcp.close();
  };
  // Each server's first try is waited for (bounded by its connect_timeout); a broken one goes on trying in the background.
  if (!overrides.mcp) await mcp.load(config.mcp_servers);
  return new Agent({
    ...overrides,
    config,
    paths,
    env,
    logger,
    registry,
    executor,
    environmentFor,
    releaseEnvironment,
    backendDescription,
    backends,
    onClose,
    mcp,
  });
}
