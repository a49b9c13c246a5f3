import type { HermesConfig, HermesPaths } from '../config/index.js';
import type { Audience, Environment } from '../environments/index.js';
import { executeCodeTool, runExecuteCode } from '../execute-code/index.js';
import type { CodeExecutor, ExecuteCodeResult } from '../execute-code/index.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { KeyedQueue } from '../shared/keyed-queue.js';
import { Semaphore } from '../shared/semaphore.js';
import { SessionStore, stateLocationFrom, type ChatMessage, type SessionRecord } from '../sessions/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext, ToolOutcome } from '../tools/types.js';
import type {
  ScriptResult,
  AgentDescription,
  AgentRunner,
  CompressResult,
  RunTurnOptions,
  SessionInfo,
  ThreadSettings,
  ThreadSettingsPatch,
  TurnResult,
  UndoResult,
  UsageReport,
} from './types.js';
import { createModelClient, type ModelClient } from './model-client.js';
import { noModelConfigured } from './model-errors.js';
import { runLoop } from './loop.js';
import { interruptedNote } from './tool-results.js';
import { skillTools } from './skills.js';
import { delegateTool } from './delegate.js';
import { visionClient, withImages, type VisionClient } from './vision.js';
import { ToolSet } from './tool-set.js';
import { SessionResources } from './session-resources.js';
import { SubagentRunner } from './subagent-runner.js';
import { SystemPrompts } from './turn-prompt.js';
import { AgentMemory } from './agent-memory.js';
import { channelOverrides, withChannelPrompt, type TurnChannel } from './channel-settings.js';
import { Conversations } from './conversations.js';
import { TurnUsage } from './turn-usage.js';
import { recordSummaryUsage, turnCompaction } from './turn-compaction.js';
import { Compactor } from './context/compactor.js';
import { ContextWindows } from './context/window.js';
import { loadTokenizer } from './context/tokens.js';
import { PRUNED_KERNEL_GONE, PRUNED_KERNEL_OUTPUT } from '../shared/notices.js';
import { compressReply, undoLastTurn, usageReport } from './session-commands.js';
import { reloadMcpServers, type McpServers, type McpServerStatus } from '../mcp/index.js';

export interface AgentOptions {
  config: HermesConfig;
  paths: HermesPaths;
  logger: Logger;
  /** The gateway's tools (terminal, file and web tools, plugins). execute_code is added when `executor` is given. */
  registry?: ToolRegistry;
  executor?: CodeExecutor;
  /** The session's terminal environment; defaults to a LocalEnvironment in `terminal.cwd`. */
  environmentFor?: (sessionId: string, audience?: Audience) => Promise<Environment>;
  /** Called when a session ends (`/new`) so a provided environment can be released. */
  releaseEnvironment?: (sessionId: string) => Promise<void>;
  /** Runs last in `close()`: cleans up what the creator wired (environment manager, plugins). */
  onClose?: () => Promise<void>;
  /** The terminal backend's description for the system prompt. */
  backendDescription?: string;
  /** Other people's backend and the warning when it is not isolated (from EnvironmentManager.backends). */
  backends?: { platformBackend: string; isolationWarning?: string };
  /** Replaces the OpenAI client built from `config.model` (tests, other transports). */
  modelClient?: ModelClient;
  /** Replaces the endpoint's model list look-up (tests, the bench). */
  contextWindows?: ContextWindows;
  /** An open session store; by default HERMES_HOME/state.db is opened (and closed by `close()`). */
  store?: SessionStore;
  /** Where API keys and skill variables are looked up: the settings' environment (none when not given). */
  env?: NodeJS.ProcessEnv;
  /** The MCP servers whose tools `registry` carries as a source (for /status and /reload-mcp). */
  mcp?: McpServers;
}

/**
 * Runs turns: one session per thread key in state.db, the tool-calling loop on the
 * session's compacted view, interrupts through the turn's AbortSignal. Its pieces are their
 * own: the session's resources (environment, kernel, skill variables), the tool set, the
 * subagent runner and the compactor.
 */
export class Agent implements AgentRunner {
  private readonly config: HermesConfig;
  private readonly paths: HermesPaths;
  /** The settings' environment: API keys, skill variables, the tools' keys. */
  private readonly env: NodeJS.ProcessEnv;
  private readonly logger: Logger;
  private readonly store: SessionStore;
  private readonly ownsStore: boolean;
  private readonly client: VisionClient;
  private readonly tools: ToolSet;
  private readonly resources: SessionResources;
  private readonly prompts: SystemPrompts;
  private readonly windows: ContextWindows;
  private readonly compactor: Compactor;
  private readonly conversations: Conversations;
  /** Turns and session commands of one key run one at a time. */
  private readonly queue = new KeyedQueue();
  private readonly onClose?: () => Promise<void>;
  private readonly backends?: { platformBackend: string; isolationWarning?: string };
  private readonly mcp?: McpServers;
  /** Notes per person, session_search, the skills the agent writes (src/memory). */
  private readonly memory: AgentMemory;
  private closed = false;

  constructor(options: AgentOptions) {
    this.config = options.config;
    this.paths = options.paths;
    this.logger = options.logger;
    const env = options.env ?? {};
    this.env = env;
    this.ownsStore = !options.store;
    this.store = options.store ?? SessionStore.open(stateLocationFrom(this.config, this.paths, env), { logger: this.logger });
    const client = options.modelClient ?? createModelClient({ model: this.config.model, logger: this.logger, env });
    this.client = visionClient(client, this.config.model.vision, this.logger);
    this.onClose = options.onClose;
    this.backends = options.backends;
    this.mcp = options.mcp;
    this.memory = new AgentMemory({ store: this.store, config: this.config, paths: this.paths, logger: this.logger, registry: options.registry });
    const memoryTools = this.memory.ownTools();
    this.resources = new SessionResources({
      config: this.config,
      logger: this.logger,
      store: this.store,
      executor: options.executor,
      environmentFor: options.environmentFor,
      releaseEnvironment: options.releaseEnvironment,
      env,
      home: this.paths.home,
    });
    this.prompts = new SystemPrompts({ paths: this.paths, logger: this.logger, backend: this.config.terminal.backend, backendDescription: options.backendDescription });
    this.windows = options.contextWindows ?? new ContextWindows({ model: this.config.model, logger: this.logger, env });
    this.compactor = new Compactor({
      settings: this.config.compression,
      windows: this.windows,
      client: this.client,
      logger: this.logger,
      kernelAlive: (owner) => this.resources.kernelState(owner) !== 'none',
    });
    this.conversations = new Conversations(this.store, { maxArgumentChars: this.config.compression.max_tool_argument_chars, logger: this.logger });
    // A tool still running this long after an interrupt is abandoned: the kill grace plus slack.
    const abandonAfterMs = (this.config.code_execution.kill_grace + 5) * 1000;
    let childCounter = 0;
    const runner: { subagents?: SubagentRunner } = {};
    const limiter = new Semaphore(this.config.agent.max_concurrent_children);
    this.tools = new ToolSet({
      config: this.config,
      logger: this.logger,
      given: options.registry?.registered() ?? [],
      sources: options.registry?.sources,
      executeCode: options.executor ? executeCodeTool(options.executor, this.config) : undefined,
      own: [
        delegateTool({
          maxDepth: this.config.agent.max_delegate_depth,
          limiter,
          nextOwner: (parent) => `${parent}::child::${++childCounter}`,
          runSubagent: (request) => runner.subagents!.run(request),
        }),
        ...memoryTools,
        ...skillTools({ dir: this.paths.skills, env, grantPassthrough: (sessionId, names) => this.resources.grantPassthrough(sessionId, names) }),
      ],
    });
    runner.subagents = new SubagentRunner({
      config: this.config,
      logger: this.logger,
      client: this.client,
      tools: this.tools,
      resources: this.resources,
      executor: options.executor,
      prompts: this.prompts,
      compactor: this.compactor,
      windows: this.windows,
      modelFor: (sessionId) => this.modelOf(this.store.get(sessionId)?.key),
      abandonAfterMs,
    });
    this.abandonAfterMs = abandonAfterMs;
    this.executor = options.executor;
    void loadTokenizer();
  }

  private readonly abandonAfterMs: number;
  /** Runs scheduled jobs' scripts directly (they have no model call to go through the tools). */
  private readonly executor?: CodeExecutor;

  /** Names of the tools the model is given. */
  toolNames(): string[] {
    return [...this.tools.enabled];
  }

  describe(): AgentDescription {
    const backend = this.config.terminal.backend;
    const platform = this.backends ?? { platformBackend: backend };
    const route = this.client.route?.();
    const answeredBy = route && route.entry > 0 ? `${route.model} (fallback ${route.entry} of model.fallbacks: ${route.reason ?? 'the primary failed'})` : undefined;
    return { model: this.config.model.name, backend, ...platform, ...(answeredBy ? { answeredBy } : {}) };
  }

  /** Each MCP server's state, for /status. */
  mcpStatus(): McpServerStatus[] {
    return this.mcp?.status() ?? [];
  }

  /** `/reload-mcp`: mcp_servers read again from config.yaml and applied. */
  reloadMcp(): Promise<string> {
    if (!this.mcp) return Promise.resolve('No MCP servers are wired into this agent.');
    return reloadMcpServers(this.mcp, this.paths);
  }

  sessionInfo(sessionKey: string): SessionInfo | undefined {
    const session = this.store.current(sessionKey);
    if (!session) return undefined;
    return {
      sessionId: session.id,
      createdAt: session.createdAt,
      messageCount: this.store.messageCount(session.id),
      kernel: this.resources.kernelState(session.id),
    };
  }

  /** The kernel state of any owner id (a session, or a subagent's `<session>::child::<n>`). */
  kernelState(owner: string): 'none' | 'idle' | 'busy' {
    return this.resources.kernelState(owner);
  }

  /** The environment the key's turns run in: the gateway saves files people send into it and pulls files out. */
  async environment(sessionKey: string, audience: Audience): Promise<Environment> {
    return this.resources.shared(this.store.currentOrCreate(sessionKey).id, audience);
  }

  async newSession(sessionKey: string): Promise<void> {
    await this.queue.run(sessionKey, async () => {
      const old = this.store.current(sessionKey);
      this.store.create(sessionKey);
      if (!old) return;
      this.conversations.forget(old.id);
      this.memory.forgetSession(old.id);
      await this.resources.release(old.id);
    });
  }

  /**
   * Runs one turn. Never throws: model failures, a missing model and internal errors come
   * back as a TurnResult whose text tells the user what to fix. Turns of one key run one at a time.
   */
  runTurn(options: RunTurnOptions): Promise<TurnResult> {
    return this.queue.run(options.sessionKey, async () => {
      try {
        return await this.turn(options);
      } catch (error) {
        this.logger.error({ err: error, sessionKey: options.sessionKey }, 'turn failed');
        return {
          status: 'error' as const,
          text: `Something went wrong inside the agent: ${errorMessage(error)}. Details are in ${this.paths.logFile}.`,
        };
      }
    });
  }

  /**
   * Runs `code` through execute_code in the key's session, on its backend, with no model call (a
   * scheduled job's script). A fresh kernel each time, ended after the run; nobody is there to
   * approve, so what needs approval is refused. Runs after the key's running turn.
   */
  runScript(sessionKey: string, code: string, options: { signal?: AbortSignal; audience?: Audience } = {}): Promise<ScriptResult> {
    return this.queue.run(sessionKey, async () => {
      const signal = options.signal ?? new AbortController().signal;
      const session = this.store.currentOrCreate(sessionKey);
      const log = this.logger.child({ session: session.id, job: sessionKey });
      let environment: Environment;
      try {
        environment = await this.resources.environment(session.id, options.audience ?? 'owner');
      } catch (error) {
        return { status: 'error', output: '', error: `the terminal backend "${this.config.terminal.backend}" could not start: ${errorMessage(error)}` };
      }
      if (!this.executor) return { status: 'error', output: '', error: 'execute_code is not available: the agent was made without a code executor' };
      const context = this.toolContext(session, environment, signal, log);
      const result = await runExecuteCode(this.executor, { code, reset: true }, context);
      // The kernel ends with the run: an idle job kernel must not hold a slot people's sessions need.
      await this.resources.releaseChild(session.id, log);
      return scriptResult(result);
    });
  }

  threadSettings(sessionKey: string): ThreadSettings {
    return this.store.threadSettings.get(sessionKey);
  }

  updateThreadSettings(sessionKey: string, patch: ThreadSettingsPatch): ThreadSettings {
    return this.store.threadSettings.update(sessionKey, patch);
  }

  async models(): Promise<string[] | undefined> {
    return (await this.windows.models())?.ids;
  }

  async usage(sessionKey: string): Promise<UsageReport | undefined> {
    const session = this.store.current(sessionKey);
    if (!session) return undefined;
    const model = this.modelOf(sessionKey);
    const prompt = this.memory.promptSize(session.id);
    const report = usageReport({
      summary: this.store.usage.summary(session.id),
      conversation: this.conversations.get(session.id),
      limits: await this.compactor.limits(model),
      model,
      pricing: this.config.model.pricing,
      pricedModel: this.config.model.name,
    });
    return prompt ? { ...report, prompt } : report;
  }

  /** `/memory [forget]`: the sender's own notes, under the platform account they wrote from. */
  memoryCommand(sender: { platform: string; id: string }, args: string, direct: boolean): string {
    return this.memory.memoryCommand({ account: sender.platform, id: sender.id }, args, direct);
  }

  skillsCommand(): string {
    return this.memory.skillsCommand();
  }

  undo(sessionKey: string): Promise<UndoResult | undefined> {
    return this.queue.run(sessionKey, async () => {
      const session = this.store.current(sessionKey);
      if (!session) return undefined;
      const result = undoLastTurn(this.conversations.get(session.id));
      if (result && session.interruptedReason) this.store.setInterrupted(session.id, null);
      return result;
    });
  }

  compress(sessionKey: string, signal: AbortSignal = new AbortController().signal): Promise<CompressResult> {
    return this.queue.run(sessionKey, async () => {
      const session = this.store.current(sessionKey);
      if (!session) return { compacted: false, text: 'Nothing to compress yet: this thread has no session.' };
      await loadTokenizer();
      const conversation = this.conversations.get(session.id);
      const model = this.modelOf(sessionKey);
      try {
        const outcome = await this.compactor.compact({
          conversation,
          owner: session.id,
          model,
          overhead: conversation.overhead,
          signal,
          mode: 'manual',
          onSummaryUsage: recordSummaryUsage(this.store, session.id, model, this.logger),
        });
        return compressReply(outcome);
      } catch (error) {
        this.logger.warn({ err: error, session: session.id }, '/compress failed');
        return { compacted: false, text: `Compacting failed: ${errorMessage(error)}` };
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.settled();
    await this.resources.close();
    await this.onClose?.().catch((error: unknown) => this.logger.warn({ err: error }, 'closing the agent\'s resources failed'));
    if (this.ownsStore) this.store.close();
  }

  /** The channel each thread's last turn came from (its `platforms.<name>.channels.<id>` settings). */
  private readonly channels = new Map<string, TurnChannel>();

  /** The model a thread's turns use: its /model, else its channel's model, else `model.name`. */
  private modelOf(sessionKey: string | undefined): string {
    const chosen = sessionKey ? this.store.threadSettings.get(sessionKey).model : undefined;
    const channel = sessionKey ? channelOverrides(this.config, this.channels.get(sessionKey)).model : undefined;
    return chosen || channel || this.config.model.name;
  }

  private async turn(options: RunTurnOptions): Promise<TurnResult> {
    if (this.closed) return { status: 'error', text: 'The agent is shutting down; send your message again in a moment.' };
    const signal = options.signal ?? new AbortController().signal;
    const session = this.store.currentOrCreate(options.sessionKey);
    const log = this.logger.child({ session: session.id, ...(options.user ? { user: options.user.id } : {}) });
    await loadTokenizer();
    if (options.channel) this.channels.set(options.sessionKey, options.channel);
    const conversation = this.conversations.get(session.id);
    // Pruned outputs that pointed at the kernel say so no more once it has ended (idle, evicted, a restart).
    if (this.resources.kernelState(session.id) === 'none') {
      conversation.rewrite((message) =>
        message.role === 'tool' && message.content === PRUNED_KERNEL_OUTPUT ? { ...message, content: PRUNED_KERNEL_GONE } : undefined,
      );
    }
    const memoryFrom = this.memory.mark(session.id);
    const user = this.userMessage(session, options.text, options.notes);
    conversation.add(user);
    // Images go to the model with their message, this turn only; state.db keeps the text (its [attached: …] lines).
    conversation.overlay(conversation.last()!, withImages(user, options.images, this.client));
    const model = this.modelOf(options.sessionKey);
    if (!model) return { status: 'error', text: noModelConfigured().message };

    let environment: Environment;
    try {
      environment = await this.resources.environment(session.id, options.audience ?? 'owner');
    } catch (error) {
      log.error({ err: error }, 'cannot create the terminal environment');
      return {
        status: 'error',
        text: `The terminal backend "${this.config.terminal.backend}" could not start: ${errorMessage(error)}. Run \`hermes doctor\` to see what is missing.`,
      };
    }
    const enabled = this.tools.enabled;
    const context = this.toolContext(session, environment, signal, log, { requestApproval: options.requestApproval, sendFile: options.sendFile });
    const { window } = await this.compactor.limits(model);
    const usage = new TurnUsage();
    const notes = this.memory.begin(session.id, options, memoryFrom);
    const system = withChannelPrompt(this.prompts.for(enabled, false, environment, notes), channelOverrides(this.config, options.channel));
    this.memory.recordPrompt(session.id, system, notes, enabled);
    try {
      const result = await runLoop({
        client: this.client,
        system,
        conversation,
        ...(model !== this.config.model.name ? { model } : {}),
        compaction: turnCompaction({
          compactor: this.compactor,
          windows: this.windows,
          conversation,
          owner: session.id,
          model,
          signal,
          onSummaryUsage: recordSummaryUsage(this.store, session.id, model, log),
        }),
        steer: options.steer,
        onUsage: (reported, counted, completion) => usage.add(reported, counted, completion),
        registry: this.tools.registry,
        enabled: new Set(enabled),
        context,
        maxIterations: this.config.agent.max_iterations,
        // No single result may take more than a quarter of the window (about four characters a token).
        toolResultMaxChars: Math.min(this.config.agent.tool_result_max_chars, window),
        abandonAfterMs: this.abandonAfterMs,
        logger: log,
        onEvent: options.onEvent,
      });
      if (result.status === 'interrupted') this.store.setInterrupted(session.id, result.reason ?? 'interrupted');
      log.info({ status: result.status }, 'turn finished');
      return { status: result.status, text: result.text };
    } finally {
      conversation.clearOverlays();
      this.memory.end(session.id, options);
      usage.record(this.store, session.id, model, log);
    }
  }

  /** What a tool call in `session` gets: where it runs, its limits, and who it may ask or send files to. */
  private toolContext(
    session: SessionRecord,
    environment: Environment,
    signal: AbortSignal,
    logger: Logger,
    asker: Pick<ToolContext, 'requestApproval' | 'sendFile'> = {},
  ): ToolContext {
    return {
      sessionId: session.id,
      signal,
      environment,
      logger,
      config: this.config,
      paths: this.paths,
      env: this.env,
      passthrough: this.resources.passthroughFor(session.id, session.passthrough),
      enabledTools: this.tools.enabled,
      ...asker,
    };
  }

  /** The user's text, after the turn's system notes: an interrupted previous turn, and any the caller gives. */
  private userMessage(session: SessionRecord, text: string, extra: string[] = []): ChatMessage & { role: 'user' } {
    const notes = [...(session.interruptedReason ? [interruptedNote(session.interruptedReason)] : []), ...extra];
    if (session.interruptedReason) this.store.setInterrupted(session.id, null);
    return { role: 'user', content: notes.length > 0 ? `${notes.join('\n')}\n\n${text}` : text };
  }
}

/** execute_code's answer as a job sees it: a status, the output, and the error when there was one. */
function scriptResult(result: ToolOutcome<ExecuteCodeResult>): ScriptResult {
  if (!('status' in result)) return { status: 'error', output: '', error: result.error };
  return { status: result.status, output: result.output, ...(result.error ? { error: result.error } : {}) };
}
