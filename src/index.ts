/**
 * hermes-gateway as a library: the execute_code engine, the tools, the terminal backends,
 * the agent and the gateway. The CLI (`hermes`) is built from these same pieces.
 */
export {
  createCodeExecutor,
  executeCodeTool,
  type CodeExecutor,
  type CodeExecutorOptions,
  type ExecuteCodeRequest,
  type ExecuteCodeResult,
  type KernelInfo,
} from './execute-code/index.js';
export { loadConfig, configSchema, hermesPaths, type HermesConfig, type ConfigOverrides, type LoadedConfig, type HermesPaths } from './config/index.js';
export { ToolRegistry, defineTool, scriptTools, SCRIPT_TOOL_NAMES, type Tool, type ToolContext } from './tools/index.js';
export {
  LocalEnvironment,
  ProviderRegistry,
  EnvironmentManager,
  createEnvironmentManager,
  type Environment,
  type TerminalEnvironmentProvider,
} from './environments/index.js';
export { createAgent, Agent, type AgentRunner, type AgentEvent, type RunTurnOptions, type TurnResult } from './agent/index.js';
export { Gateway, type PlatformAdapter, type InboundMessage } from './gateway/index.js';
export { HermesError, ConfigError } from './shared/index.js';
