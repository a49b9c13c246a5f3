import { scriptToolSet, MEMORY_SCRIPT_TOOLS } from './script-tool-set.js';
import { performance } from 'node:perf_hooks';
import {
  loadConfig,
  withOverrides,
  type ConfigOverrides,
  type HermesConfig,
  type HermesPaths,
  type LoadedConfig,
  type SettingsEnv,
} from '../config/index.js';
import { LocalEnvironment } from '../environments/local.js';
import { buildChildEnv } from '../environments/child-env.js';
import { runsOnThisHost, type Environment, type SpillFolder } from '../environments/types.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';
import { SCRIPT_TOOL_NAMES, SCRIPT_TOOL_SIGNATURES, scriptTools } from '../tools/builtin/index.js';
import { runCall, type CellRequest } from './call-path.js';
import { LocalCodeRunner } from './local-runner.js';
import { RemoteCodeRunner } from './remote/index.js';
import { refusedResult, validateCode } from './result.js';
import { cleanOutput } from '../shared/clean-output.js';
import { resolveWorkingFolder } from '../environments/working-folder.js';
import { renderStub } from './stub.js';
// The name only, from its own file: the mcp front door loads the MCP SDK, which hermes exec never needs.
import { MCP_SCRIPT_TOOL } from '../mcp/script-tool.js';
import type { CodeExecutor, ExecuteCodeRequest, ExecuteCodeResult } from './types.js';

export interface CodeExecutorOptions {
  /** HERMES_HOME; defaults to the `HERMES_HOME` variable, then `~/.hermes`. */
  home?: string;
  /** The working folder of the default local environment (else terminal.cwd, else process.cwd()). */
  cwd?: string;
  /** Laid over the loaded configuration: `{ code_execution: { timeout: 3 } }`. */
  config?: ConfigOverrides;
  /** An already loaded configuration (the gateway passes its own); `config` still applies on top. */
  loaded?: LoadedConfig;
  /** The tools scripts may call; defaults to the seven script tools. */
  registry?: ToolRegistry;
  logger?: Logger;
}

/** The seven script tools' names, in the order of the documentation. */
const SEVEN: readonly string[] = SCRIPT_TOOL_NAMES;

/**
 * Runs execute_code calls: validates the code, picks the tools the script may call, and runs
 * it as a one-shot script (or, with session kernels, in the session's resident kernel).
 */
export class DefaultCodeExecutor implements CodeExecutor {
  readonly config: HermesConfig;
  readonly paths: HermesPaths;
  /** The settings' environment, for the tools a script calls (their keys). */
  private readonly env?: SettingsEnv;
  private readonly registry: ToolRegistry;
  private readonly logger: Logger;
  private readonly defaultEnvironment: Environment;
  private readonly stubs = new Map<string, string>();
  /** execute_code where processes start on this host (local, sandbox). */
  private readonly local: LocalCodeRunner;
  /** execute_code on every other backend (SSH, Docker, plugins): over a stream, else files. */
  private readonly remote: RemoteCodeRunner;

  constructor(private readonly options: CodeExecutorOptions = {}) {
    const loaded = options.loaded
      ? { ...options.loaded, config: mergeOver(options.loaded, options) }
      : loadConfig({ home: options.home, overrides: options.config });
    this.config = loaded.config;
    this.paths = loaded.paths;
    this.env = loaded.env;
    this.registry = options.registry ?? new ToolRegistry(scriptTools());
    this.logger = (options.logger ?? silentLogger()).child({ tool: 'execute_code' });
    const cwd = options.cwd ?? resolveWorkingFolder(this.config.terminal.cwd, { logger: this.logger, home: this.paths.home }).cwd;
    this.defaultEnvironment = new LocalEnvironment({
      cwd,
      timeout: this.config.terminal.timeout,
      maxOutputBytes: this.config.terminal.max_output_bytes,
      spillDir: this.paths.execCache,
      childEnv: () =>
        buildChildEnv({ passthrough: this.config.terminal.env_passthrough, logger: this.logger, label: 'terminal' }),
    });
    this.local = new LocalCodeRunner({
      config: this.config,
      registry: this.registry,
      logger: this.logger,
      spillFor: (environment) => this.spillFor(environment),
    });
    this.remote = new RemoteCodeRunner({
      config: this.config,
      registry: this.registry,
      logger: this.logger,
      spillDir: this.paths.execCache,
    });
  }

  async execute(request: ExecuteCodeRequest): Promise<ExecuteCodeResult> {
    const startedMs = performance.now();
    const context = this.contextFor(request);
    const allowed = this.allowedTools(request, context);
    const invalid = validateCode(request.code, allowed);
    if (invalid) return refusedResult(invalid, startedMs);
    const call = this.callFor(request, context, allowed, startedMs);
    const environment = context.environment;
    // The one place that decides the path: processes start on this host (local, sandbox) or
    // on a backend elsewhere. Nothing is awaited before the call joins its owner's kernel
    // queue: cells run in the order issued.
    const onHost = runsOnThisHost(environment);
    const result = onHost ? await runCall(this.local, call, environment, this.logger) : await runCall(this.remote, call, environment, this.logger);
    return this.forModel(result, context, onHost);
  }

  /**
   * What the model sees of a result: output and error without ANSI escape sequences and with
   * credential-shaped strings masked (`code_execution.redact_secrets`), plus the note when
   * terminal.cwd fell back to the gateway's folder (only on this host: a backend has its own folders).
   */
  private forModel(result: ExecuteCodeResult, context: ToolContext, onHost: boolean): ExecuteCodeResult {
    const masked: string[] = [];
    const options = { redact: this.config.code_execution.redact_secrets, onMask: (name: string) => masked.push(name) };
    const finished: ExecuteCodeResult = { ...result, output: cleanOutput(result.output, options) };
    if (result.error !== undefined) finished.error = cleanOutput(result.error, options);
    if (masked.length > 0) context.logger.info({ masked }, `execute_code: masked ${masked.length} credential-shaped string(s) in the output`);
    const folder = onHost ? resolveWorkingFolder(this.config.terminal.cwd, { home: this.paths.home }) : undefined;
    if (folder?.note && context.environment.cwd === folder.cwd) {
      finished.warning = finished.warning ? `${finished.warning} ${folder.note}` : folder.note;
    }
    return finished;
  }

  private callFor(request: ExecuteCodeRequest, context: ToolContext, allowed: ReadonlySet<string>, startedMs: number): CellRequest {
    return {
      owner: request.sessionId,
      code: request.code as string,
      reset: request.reset === true,
      stub: this.stubFor(allowed),
      allowed,
      context,
      passthrough: this.passthrough(request, context),
      startedMs,
    };
  }

  /** Disposes the session's kernel (`/new`, session close); its next call starts fresh. */
  async resetSession(sessionId: string): Promise<void> {
    await this.local.kernels?.pool.dispose(sessionId);
    await this.remote.kernels?.pool.dispose(sessionId);
  }

  /** Pins a subagent's kernel while it runs; the returned function unpins and disposes it. */
  pin(owner: string): () => Promise<void> {
    if (!this.local.kernels) return async () => {};
    const local = this.local.kernels.pool.pin(owner);
    const remote = this.remote.kernels?.pool.pin(owner);
    return async () => {
      await Promise.all([local(), remote?.()]);
    };
  }

  kernelState(sessionId: string): 'none' | 'idle' | 'busy' {
    const remote = this.remote.kernels?.pool.state(sessionId) ?? 'none';
    return remote !== 'none' ? remote : (this.local.kernels?.pool.state(sessionId) ?? 'none');
  }

  /** Disposes every kernel and its RPC server and staging folder. */
  async close(): Promise<void> {
    await this.local.close();
    await this.remote.close();
  }

  /** The context script tool calls run with: the caller's, or a local one for library use. */
  private contextFor(request: ExecuteCodeRequest): ToolContext {
    const signal = request.signal ?? request.context?.signal ?? new AbortController().signal;
    if (request.context) return { ...request.context, signal };
    return {
      sessionId: request.sessionId,
      signal,
      environment: this.defaultEnvironment,
      logger: this.logger.child({ session: request.sessionId }),
      config: this.config,
      paths: this.paths,
      ...(this.env ? { env: this.env } : {}),
      passthrough: new Set(request.passthrough ?? []),
      enabledTools: request.enabledTools,
    };
  }

  /** The seven script tools, narrowed to the session's enabled tools and to what is registered. */
  private allowedTools(request: ExecuteCodeRequest, context: ToolContext): ReadonlySet<string> {
    const enabled = request.enabledTools ?? context.enabledTools;
    const tools = scriptToolSet([...SEVEN, ...MEMORY_SCRIPT_TOOLS].filter((name) => this.registry.has(name)), enabled);
    // `hermes_tools.mcp` while MCP servers are configured; each server decides with its own `scripts`.
    if (this.registry.has(MCP_SCRIPT_TOOL)) tools.push(MCP_SCRIPT_TOOL);
    return new Set(tools);
  }

  private passthrough(request: ExecuteCodeRequest, context: ToolContext): Set<string> {
    return new Set([...this.config.terminal.env_passthrough, ...(request.passthrough ?? []), ...(context.passthrough ?? [])]);
  }

  /** Where a cut stdout goes: where the environment's own read_file can open it, else HERMES_HOME/cache/exec. */
  private spillFor(environment: Environment): SpillFolder {
    return environment.spillFolder?.() ?? { host: this.paths.execCache, visible: this.paths.execCache };
  }


  /** The generated hermes_tools.py for a set of allowed tools (cached: it rarely changes). */
  private stubFor(allowed: ReadonlySet<string>): string {
    const key = [...allowed].join(',');
    let stub = this.stubs.get(key);
    if (!stub) {
      const functions = [...allowed].filter((name) => Object.hasOwn(SCRIPT_TOOL_SIGNATURES, name));
      stub = renderStub(
        functions.map((name) => ({ name, ...SCRIPT_TOOL_SIGNATURES[name] })),
        { mcp: allowed.has(MCP_SCRIPT_TOOL) },
      );
      this.stubs.set(key, stub);
    }
    return stub;
  }
}

function mergeOver(loaded: LoadedConfig, options: CodeExecutorOptions): HermesConfig {
  return withOverrides(loaded.config, options.config, 'createCodeExecutor options.config');
}

/** Builds a CodeExecutor; see `CodeExecutorOptions`. Exported from the package root. */
export function createCodeExecutor(options: CodeExecutorOptions = {}): DefaultCodeExecutor {
  return new DefaultCodeExecutor(options);
}
