import type { HermesConfig, HermesPaths } from '../config/index.js';
import { LocalEnvironment, buildChildEnv, providerOf, type Audience, type Environment } from '../environments/index.js';
import { resolveWorkingFolder } from '../environments/working-folder.js';
import { executeCodeTool } from '../execute-code/index.js';
import type { CodeExecutor } from '../execute-code/index.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { SessionStore, type ChatMessage, type SessionRecord } from '../sessions/index.js';
import { ToolRegistry } from '../tools/registry.js';
import type { Tool, ToolContext } from '../tools/types.js';
import type { AgentDescription, AgentRunner, RunTurnOptions, SessionInfo, TurnResult } from './types.js';
import { createModelClient, type ModelClient } from './model-client.js';
import { noModelConfigured } from './model-errors.js';
import { buildSystemPrompt } from './prompt.js';
import { runLoop } from './loop.js';
import { repairHistory } from './history.js';
import { interruptedNote } from './tool-results.js';
import { loadSkills, skillTools } from './skills.js';
import { delegateDepth, delegateTool, type SubagentRequest, type SubagentResult } from './delegate.js';
import { visionClient, withImages, type VisionClient } from './vision.js';
import { Semaphore } from '../shared/semaphore.js';
import { withSessionVariables } from './session-environment.js';
import { enabledToolNames, orderTools } from './tool-set.js';

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
  /** An open session store; by default HERMES_HOME/state.db is opened (and closed by `close()`). */
  store?: SessionStore;
  /** Where API keys and skill variables are looked up (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * The agent behind every chat thread: one session per thread key in SQLite, the
 * tool-calling loop, interrupts through the turn's AbortSignal, subagents and skills.
 */
export class Agent implements AgentRunner {
  private readonly config: HermesConfig;
  private readonly paths: HermesPaths;
  private readonly logger: Logger;
  private readonly store: SessionStore;
  private readonly ownsStore: boolean;
  private readonly client: VisionClient;
  private readonly executor?: CodeExecutor;
  private readonly registry: ToolRegistry;
  private readonly enabled: string[];
  private readonly environmentFor: (sessionId: string, audience?: Audience) => Promise<Environment>;
  private readonly releaseEnvironment?: (sessionId: string) => Promise<void>;
  private readonly onClose?: () => Promise<void>;
  /** Environments this agent created itself (the default local ones). */
  private readonly localEnvironments = new Map<string, Environment>();
  /** A fixed description of where commands run; without it each turn describes its own environment. */
  private readonly backendDescription?: string;
  private readonly backends?: { platformBackend: string; isolationWarning?: string };
  private readonly passthrough = new Map<string, Set<string>>();
  private readonly lanes = new Map<string, Promise<unknown>>();
  private readonly limiter: Semaphore;
  private readonly env: NodeJS.ProcessEnv;
  private childCounter = 0;
  /** A tool still running this long after an interrupt is abandoned: the kill grace plus slack. */
  private get abandonAfterMs(): number {
    return (this.config.code_execution.kill_grace + 5) * 1000;
  }
  private closed = false;

  constructor(options: AgentOptions) {
    this.config = options.config;
    this.paths = options.paths;
    this.logger = options.logger;
    this.env = options.env ?? process.env;
    this.executor = options.executor;
    this.ownsStore = !options.store;
    this.store = options.store ?? SessionStore.open(this.paths.stateDb, { logger: this.logger });
    const client = options.modelClient ?? createModelClient({ model: this.config.model, logger: this.logger, env: this.env });
    this.client = visionClient(client, this.config.model.vision, this.logger);
    this.limiter = new Semaphore(this.config.agent.max_concurrent_children);
    const cwd = resolveWorkingFolder(this.config.terminal.cwd, { logger: this.logger }).cwd;
    this.environmentFor = options.environmentFor ?? ((sessionId) => Promise.resolve(this.localEnvironment(sessionId, cwd)));
    this.releaseEnvironment = options.releaseEnvironment;
    this.onClose = options.onClose;
    this.backendDescription = options.backendDescription;
    this.backends = options.backends;

    const own: Tool[] = [
      delegateTool({
        maxDepth: this.config.agent.max_delegate_depth,
        limiter: this.limiter,
        nextOwner: (parent) => `${parent}::child::${++this.childCounter}`,
        runSubagent: (request) => this.runSubagent(request),
      }),
      ...skillTools({
        dir: this.paths.skills,
        env: this.env,
        grantPassthrough: (sessionId, names) => this.grantPassthrough(sessionId, names),
      }),
    ];
    const given = options.registry?.list() ?? [];
    const code = this.executor && !given.some((t) => t.name === 'execute_code') ? [executeCodeTool(this.executor, this.config)] : [];
    this.registry = new ToolRegistry(orderTools([...code, ...given, ...own]));
    this.enabled = enabledToolNames(this.registry.names(), this.config.agent.tools);
    const { enabled, disabled } = this.config.agent.tools;
    const unknown = [...enabled, ...disabled].filter((name) => !this.registry.has(name));
    if (unknown.length > 0) {
      this.logger.warn(
        { unknown, known: this.registry.names() },
        `agent.tools names unknown tool(s): ${unknown.join(', ')}; known: ${this.registry.names().join(', ')}`,
      );
    }
  }

  /** Names of the tools the model is given. */
  toolNames(): string[] {
    return [...this.enabled];
  }

  describe(): AgentDescription {
    const backend = this.config.terminal.backend;
    const platform = this.backends ?? { platformBackend: backend };
    return { model: this.config.model.name, backend, ...platform };
  }

  sessionInfo(sessionKey: string): SessionInfo | undefined {
    const session = this.store.current(sessionKey);
    if (!session) return undefined;
    return {
      sessionId: session.id,
      createdAt: session.createdAt,
      messageCount: this.store.messageCount(session.id),
      kernel: this.executor?.kernelState?.(session.id) ?? 'none',
    };
  }

  /** The kernel state of any owner id (a session, or a subagent's `<session>::child::<n>`). */
  kernelState(owner: string): 'none' | 'idle' | 'busy' {
    return this.executor?.kernelState?.(owner) ?? 'none';
  }

  /** The environment the key's turns run in: the gateway saves files people send into it and pulls files out. */
  async environment(sessionKey: string, audience: Audience): Promise<Environment> {
    return this.environmentFor(this.store.currentOrCreate(sessionKey).id, audience);
  }

  async newSession(sessionKey: string): Promise<void> {
    await this.inLane(sessionKey, async () => {
      const old = this.store.current(sessionKey);
      this.store.create(sessionKey);
      if (old) await this.disposeSession(old.id);
    });
  }

  /**
   * Runs one turn. Never throws: model failures, a missing model and internal errors come
   * back as a TurnResult whose text tells the user what to fix. Turns of one key run one at a time.
   */
  runTurn(options: RunTurnOptions): Promise<TurnResult> {
    return this.inLane(options.sessionKey, async () => {
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.lanes.values()]);
    await this.executor?.close().catch((error: unknown) => this.logger.warn({ err: error }, 'closing the code executor failed'));
    for (const env of this.localEnvironments.values()) await env.cleanup().catch(() => undefined);
    this.localEnvironments.clear();
    await this.onClose?.().catch((error: unknown) => this.logger.warn({ err: error }, 'closing the agent\'s resources failed'));
    if (this.ownsStore) this.store.close();
  }

  private async turn(options: RunTurnOptions): Promise<TurnResult> {
    if (this.closed) return { status: 'error', text: 'The agent is shutting down; send your message again in a moment.' };
    const signal = options.signal ?? new AbortController().signal;
    const session = this.store.currentOrCreate(options.sessionKey);
    const log = this.logger.child({ session: session.id, ...(options.user ? { user: options.user.id } : {}) });
    const history = repairHistory(this.store.messages(session.id));
    const user = this.userMessage(session, options.text);
    // Images go to the model with their message only; state.db keeps the text (its [attached: …] lines).
    history.push(withImages(user, options.images, this.client));
    this.store.append(session.id, user);
    if (!this.config.model.name) return { status: 'error', text: noModelConfigured().message };

    let environment: Environment;
    try {
      const shared = await this.environmentFor(session.id, options.audience ?? 'owner');
      environment = withSessionVariables(shared, () => this.passthrough.get(session.id) ?? [], this.env);
    } catch (error) {
      log.error({ err: error }, 'cannot create the terminal environment');
      return {
        status: 'error',
        text: `The terminal backend "${this.config.terminal.backend}" could not start: ${errorMessage(error)}. Run \`hermes doctor\` to see what is missing.`,
      };
    }
    const context: ToolContext = {
      sessionId: session.id,
      signal,
      environment,
      logger: log,
      config: this.config,
      paths: this.paths,
      passthrough: this.passthroughFor(session),
      requestApproval: options.requestApproval,
      enabledTools: this.enabled,
      sendFile: options.sendFile,
    };
    const result = await runLoop({
      client: this.client,
      system: this.systemPrompt(this.enabled, false, environment),
      history,
      registry: this.registry,
      enabled: new Set(this.enabled),
      context,
      maxIterations: this.config.agent.max_iterations,
      toolResultMaxChars: this.config.agent.tool_result_max_chars,
      abandonAfterMs: this.abandonAfterMs,
      logger: log,
      onEvent: options.onEvent,
      onMessage: (message) => this.save(session.id, message, log),
    });
    if (result.status === 'interrupted') this.store.setInterrupted(session.id, result.reason ?? 'interrupted');
    log.info({ status: result.status }, 'turn finished');
    return { status: result.status, text: result.text };
  }

  /** The user's text, with the note about an interrupted previous turn when there was one. */
  private userMessage(session: SessionRecord, text: string): ChatMessage & { role: 'user' } {
    if (!session.interruptedReason) return { role: 'user', content: text };
    this.store.setInterrupted(session.id, null);
    return { role: 'user', content: `${interruptedNote(session.interruptedReason)}\n\n${text}` };
  }

  private save(sessionId: string, message: ChatMessage, log: Logger): void {
    try {
      this.store.append(sessionId, message);
    } catch (error) {
      log.error({ err: error }, 'could not save a message to state.db; the turn goes on');
    }
  }

  private systemPrompt(tools: readonly string[], subagent: boolean, environment: Environment): string {
    const skills = tools.includes('skill_view') ? loadSkills(this.paths.skills, this.logger) : [];
    const backendDescription = this.backendDescription ?? describeEnvironment(environment, this.config.terminal.backend);
    return buildSystemPrompt({ backendDescription, toolNames: tools, subagent, skills });
  }

  private async runSubagent(request: SubagentRequest): Promise<SubagentResult> {
    const parentTools = request.parent.enabledTools ?? this.enabled;
    let names = request.tools ? parentTools.filter((name) => request.tools!.includes(name)) : [...parentTools];
    if (delegateDepth(request.owner) >= this.config.agent.max_delegate_depth) names = names.filter((n) => n !== 'delegate_task');
    const log = this.logger.child({ session: request.owner });
    const passthrough = new Set(request.parent.passthrough ?? []);
    this.passthrough.set(request.owner, passthrough);
    const unpin = this.executor?.pin?.(request.owner);
    log.info({ tools: names }, 'subagent started');
    try {
      const goal = request.context ? `${request.goal}\n\nContext:\n${request.context}` : request.goal;
      const result = await runLoop({
        client: this.client,
        system: this.systemPrompt(names, true, request.parent.environment),
        history: [{ role: 'user', content: goal }],
        registry: this.registry,
        enabled: new Set(names),
        context: {
          ...request.parent,
          sessionId: request.owner,
          enabledTools: names,
          passthrough,
          logger: log,
          environment: withSessionVariables(request.parent.environment, () => passthrough, this.env),
        },
        maxIterations: this.config.agent.max_iterations,
        toolResultMaxChars: this.config.agent.tool_result_max_chars,
        abandonAfterMs: this.abandonAfterMs,
        logger: log,
      });
      log.info({ status: result.status }, 'subagent finished');
      return result;
    } catch (error) {
      log.error({ err: error }, 'subagent failed');
      return { status: 'error', text: errorMessage(error) };
    } finally {
      // The subagent's kernel lives as long as the subagent.
      await unpin?.().catch(() => undefined);
      await this.executor?.resetSession(request.owner).catch((error: unknown) => log.warn({ err: error }, 'disposing the subagent kernel failed'));
      this.passthrough.delete(request.owner);
    }
  }

  /** The live set of skill variables for a session; tools see additions at once. */
  private passthroughFor(session: SessionRecord): Set<string> {
    let set = this.passthrough.get(session.id);
    if (!set) this.passthrough.set(session.id, (set = new Set(session.passthrough)));
    return set;
  }

  private grantPassthrough(sessionId: string, names: readonly string[]): void {
    let set = this.passthrough.get(sessionId);
    if (!set) this.passthrough.set(sessionId, (set = new Set()));
    for (const name of names) set.add(name);
    if (delegateDepth(sessionId) === 0) {
      try {
        this.store.addPassthrough(sessionId, names);
      } catch (error) {
        this.logger.warn({ err: error, session: sessionId }, 'could not save skill variables to state.db');
      }
    }
  }

  private localEnvironment(sessionId: string, cwd: string): Environment {
    const existing = this.localEnvironments.get(sessionId);
    if (existing) return existing;
    const terminal = this.config.terminal;
    const created = new LocalEnvironment({
      cwd,
      timeout: terminal.timeout,
      maxOutputBytes: terminal.max_output_bytes,
      childEnv: () =>
        buildChildEnv({
          source: this.env,
          passthrough: [...terminal.env_passthrough, ...(this.passthrough.get(sessionId) ?? [])],
          logger: this.logger,
          label: 'terminal',
        }),
    });
    this.localEnvironments.set(sessionId, created);
    return created;
  }

  private async disposeSession(sessionId: string): Promise<void> {
    this.passthrough.delete(sessionId);
    await this.executor?.resetSession(sessionId).catch((error: unknown) => this.logger.warn({ err: error }, 'disposing a kernel failed'));
    const local = this.localEnvironments.get(sessionId);
    this.localEnvironments.delete(sessionId);
    await local?.cleanup().catch(() => undefined);
    await this.releaseEnvironment?.(sessionId).catch((error: unknown) => this.logger.warn({ err: error }, 'releasing an environment failed'));
  }

  /** Runs `task` after the previous task of the same key has settled. */
  private inLane<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.lanes.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const settled = next.catch(() => undefined);
    this.lanes.set(key, settled);
    void settled.then(() => {
      if (this.lanes.get(key) === settled) this.lanes.delete(key);
    });
    return next;
  }
}

/** Where the turn's commands run, for the system prompt: the backend's own words and the working folder. */
function describeEnvironment(environment: Environment, fallbackName: string): string {
  const provider = providerOf(environment);
  const what = provider?.envDescription || provider?.description || (provider ? 'commands run through this backend' : 'commands run directly on this machine');
  return `${provider?.name ?? fallbackName} — ${what} (working folder ${environment.cwd})`;
}
