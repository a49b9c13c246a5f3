import type { HermesConfig } from '../config/index.js';
import { LocalEnvironment, buildChildEnv, type Audience, type Environment } from '../environments/index.js';
import { resolveWorkingFolder } from '../environments/working-folder.js';
import type { CodeExecutor } from '../execute-code/index.js';
import type { Logger } from '../shared/logger.js';
import type { SessionStore } from '../sessions/index.js';
import { delegateDepth } from './delegate.js';
import { withSessionVariables } from './session-environment.js';

export interface SessionResourcesOptions {
  config: HermesConfig;
  logger: Logger;
  store: SessionStore;
  executor?: CodeExecutor;
  /** The session's terminal environment; defaults to a LocalEnvironment in `terminal.cwd`. */
  environmentFor?: (sessionId: string, audience?: Audience) => Promise<Environment>;
  /** Called when a session ends (`/new`) so a provided environment can be released. */
  releaseEnvironment?: (sessionId: string) => Promise<void>;
  /** Where skill variables are read (the settings' environment). */
  env: NodeJS.ProcessEnv;
  /** HERMES_HOME: the default working folder is its workspace. */
  home: string;
}

/**
 * What a session holds besides its messages: its terminal environment, its Python kernel,
 * and the skill variables that pass through to its commands. Released when the session ends.
 */
export class SessionResources {
  private readonly options: SessionResourcesOptions;
  private readonly environmentFor: (sessionId: string, audience?: Audience) => Promise<Environment>;
  /** Environments made here (the default local ones). */
  private readonly localEnvironments = new Map<string, Environment>();
  private readonly passthrough = new Map<string, Set<string>>();

  constructor(options: SessionResourcesOptions) {
    this.options = options;
    const cwd = resolveWorkingFolder(options.config.terminal.cwd, { logger: options.logger, home: options.home }).cwd;
    this.environmentFor = options.environmentFor ?? ((sessionId) => Promise.resolve(this.localEnvironment(sessionId, cwd)));
  }

  /** The session's environment as it is shared (the gateway moves files through it). */
  shared(sessionId: string, audience: Audience): Promise<Environment> {
    return this.environmentFor(sessionId, audience);
  }

  /** The session's environment as its tools see it: commands also get the session's skill variables. */
  async environment(sessionId: string, audience: Audience): Promise<Environment> {
    const shared = await this.environmentFor(sessionId, audience);
    return withSessionVariables(shared, () => this.passthrough.get(sessionId) ?? [], this.options.env);
  }

  /** A subagent's view of its parent's environment, with its own variable set. */
  childEnvironment(parent: Environment, owner: string, inherited: Iterable<string>): { environment: Environment; passthrough: Set<string> } {
    const passthrough = new Set(inherited);
    this.passthrough.set(owner, passthrough);
    return { environment: withSessionVariables(parent, () => passthrough, this.options.env), passthrough };
  }

  /** The live set of skill variables of a session; tools see additions at once. */
  passthroughFor(sessionId: string, stored: readonly string[]): Set<string> {
    let set = this.passthrough.get(sessionId);
    if (!set) this.passthrough.set(sessionId, (set = new Set(stored)));
    return set;
  }

  /** Skill variables `skill_view` declared: they pass through from now on (and after a restart, for sessions). */
  grantPassthrough(sessionId: string, names: readonly string[]): void {
    let set = this.passthrough.get(sessionId);
    if (!set) this.passthrough.set(sessionId, (set = new Set()));
    for (const name of names) set.add(name);
    if (delegateDepth(sessionId) > 0) return;
    try {
      this.options.store.addPassthrough(sessionId, names);
    } catch (error) {
      this.options.logger.warn({ err: error, session: sessionId }, 'could not save skill variables to state.db');
    }
  }

  /** The kernel state of a session or a subagent. */
  kernelState(owner: string): 'none' | 'idle' | 'busy' {
    return this.options.executor?.kernelState?.(owner) ?? 'none';
  }

  /** Ends what a subagent held: its kernel and its variables. */
  async releaseChild(owner: string, log: Logger): Promise<void> {
    await this.options.executor?.resetSession(owner).catch((error: unknown) => log.warn({ err: error }, 'disposing the subagent kernel failed'));
    this.passthrough.delete(owner);
  }

  /** Ends what a session held (`/new`): its kernel, its environment, its variables. */
  async release(sessionId: string): Promise<void> {
    const { executor, logger, releaseEnvironment } = this.options;
    this.passthrough.delete(sessionId);
    await executor?.resetSession(sessionId).catch((error: unknown) => logger.warn({ err: error }, 'disposing a kernel failed'));
    const local = this.localEnvironments.get(sessionId);
    this.localEnvironments.delete(sessionId);
    await local?.cleanup().catch(() => undefined);
    await releaseEnvironment?.(sessionId).catch((error: unknown) => logger.warn({ err: error }, 'releasing an environment failed'));
  }

  /** Closes the executor and the environments made here. */
  async close(): Promise<void> {
    await this.options.executor?.close().catch((error: unknown) => this.options.logger.warn({ err: error }, 'closing the code executor failed'));
    for (const environment of this.localEnvironments.values()) await environment.cleanup().catch(() => undefined);
    this.localEnvironments.clear();
  }

  private localEnvironment(sessionId: string, cwd: string): Environment {
    const existing = this.localEnvironments.get(sessionId);
    if (existing) return existing;
    const { terminal } = this.options.config;
    const created = new LocalEnvironment({
      cwd,
      timeout: terminal.timeout,
      maxOutputBytes: terminal.max_output_bytes,
      childEnv: () =>
        buildChildEnv({
          source: this.options.env,
          passthrough: [...terminal.env_passthrough, ...(this.passthrough.get(sessionId) ?? [])],
          logger: this.options.logger,
          label: 'terminal',
        }),
    });
    this.localEnvironments.set(sessionId, created);
    return created;
  }
}
