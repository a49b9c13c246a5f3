import type { HermesConfig } from '../config/schema.js';
import type { HermesPaths } from '../config/paths.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import { buildChildEnv } from './child-env.js';
import { tagEnvironment } from './environment-info.js';
import { BackendError, type ProviderRegistry } from './registry.js';
import type { SafeProvider } from './safe-provider.js';
import type { Environment } from './types.js';
import { resolveWorkingFolder } from './working-folder.js';
import { chooseBackends, type Audience, type BackendChoice } from './audience.js';

export interface EnvironmentManagerOptions {
  config: HermesConfig;
  paths: HermesPaths;
  registry: ProviderRegistry;
  logger?: Logger;
  /** The variables children choose from; by default the gateway's own (child-env.ts). */
  source?: NodeJS.ProcessEnv;
}

/**
 * Gives each session the environment of its backend: `terminal.backend` for the owner's
 * sessions, `terminal.platform_backend` for other people's (see chooseBackends). Per backend,
 * one environment is shared by all its sessions, except when the backend isolates sessions
 * (`alwaysSessionIsolated`, or `sessionIsolatedWhenNonpersistent` with
 * `terminal.container_persistent: false`): then each session gets its own.
 */
export class EnvironmentManager {
  private readonly environments = new Map<string, Promise<Environment>>();
  /** Per-session views of shared environments (Environment.forSession), by `<key>:<session>`. */
  private readonly views = new Map<string, Environment>();
  private readonly viewOf = new WeakMap<Environment, Environment>();
  /** Which environment key each session uses, so release() finds it. */
  private readonly sessionKeys = new Map<string, string>();
  private readonly logger: Logger;
  private choice?: BackendChoice;

  constructor(private readonly options: EnvironmentManagerOptions) {
    this.logger = options.logger ?? silentLogger();
  }

  /** The backends by audience (throws a BackendError listing the known ones when a name is unknown). */
  get backends(): BackendChoice {
    this.choice ??= chooseBackends(this.options.config, this.options.registry);
    return this.choice;
  }

  /**
   * The owner's backend, `terminal.backend`. It does not need others' choice, so it skips the
   * bubblewrap trial that choice may run (`hermes exec` starts sooner); unknown names fail
   * as in chooseBackends.
   */
  get provider(): SafeProvider {
    if (this.choice) return this.choice.owner;
    const { backend, platform_backend: others } = this.options.config.terminal;
    const owner = this.options.registry.require(backend);
    if (others !== 'auto') this.options.registry.require(others);
    return owner;
  }

  /** Whether each session of `provider` gets its own environment. */
  isolates(provider: SafeProvider): boolean {
    return provider.alwaysSessionIsolated || (!this.options.config.terminal.container_persistent && provider.sessionIsolatedWhenNonpersistent);
  }

  /**
   * The environment the session's commands, file tools and scripts run in; created on
   * first use. Pass this function to the agent as `environmentFor`.
   */
  environmentFor = async (sessionId: string, audience: Audience = 'owner'): Promise<Environment> => {
    const provider = audience === 'others' ? this.backends.others : this.provider;
    const key = this.isolates(provider) ? `${provider.name}:${sessionId}` : `${provider.name}:shared`;
    this.sessionKeys.set(sessionId, key);
    let pending = this.environments.get(key);
    if (!pending) {
      pending = this.create(provider, this.isolates(provider) ? sessionId : 'default');
      this.environments.set(key, pending);
      pending.catch(() => this.environments.delete(key));
    }
    if (!key.endsWith(':shared')) return pending;
    // A shared environment that follows a terminal `cd` gets one view per session (its own working folder).
    const environment = await pending;
    if (!environment.forSession) return environment;
    const viewKey = `${key}:${sessionId}`;
    let view = this.views.get(viewKey);
    if (!view || this.viewOf.get(view) !== environment) {
      view = environment.forSession();
      // Guards read the provider from the tag: the view carries its environment's.
      tagEnvironment(view, provider);
      this.views.set(viewKey, view);
      this.viewOf.set(view, environment);
    }
    return view;
  };

  /** The scrubbed variables every child gets: secrets and every provider's stripEnvKeys out. */
  childEnv(): Record<string, string> {
    return buildChildEnv({
      source: this.options.source,
      passthrough: this.options.config.terminal.env_passthrough,
      logger: this.logger,
      label: 'terminal',
    });
  }

  /** The session ended (`/new`, closed): its own environment, if it has one, is cleaned up. */
  async release(sessionId: string): Promise<void> {
    const key = this.sessionKeys.get(sessionId);
    this.sessionKeys.delete(sessionId);
    if (key) this.views.delete(`${key}:${sessionId}`);
    if (key && !key.endsWith(':shared')) await this.dispose(key);
  }

  /** Cleans up every environment (gateway shutdown). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.environments.keys()].map((key) => this.dispose(key)));
  }

  private async dispose(key: string): Promise<void> {
    const pending = this.environments.get(key);
    if (!pending) return;
    this.environments.delete(key);
    try {
      await (await pending).cleanup();
    } catch (error) {
      this.logger.warn({ err: errorMessage(error), session: key }, `cleaning up the ${key} environment failed`);
    }
  }

  private async create(provider: SafeProvider, key: string): Promise<Environment> {
    if (!(await provider.isAvailable())) {
      throw new BackendError('BACKEND_UNAVAILABLE', `terminal.backend: backend "${provider.name}" is not available on this host; run \`hermes doctor\` to see what is missing, or choose another with \`hermes setup\``);
    }
    const { config, paths } = this.options;
    const environment = await provider.createEnvironment({
      cwd: resolveWorkingFolder(config.terminal.cwd, { remote: provider.isRemote, logger: this.logger, home: paths.home }).cwd,
      timeout: config.terminal.timeout,
      taskId: key,
      logger: this.logger.child({ session: key, backend: provider.name }),
      // Keys beyond the four above are extras: providers take what they know.
      childEnv: () => this.childEnv(),
      persistent: config.terminal.container_persistent,
      hermesHome: paths.home,
      maxOutputBytes: config.terminal.max_output_bytes,
    });
    tagEnvironment(environment, provider);
    this.logger.debug({ session: key, backend: provider.name }, `created a ${provider.name} environment for ${key}`);
    return environment;
  }
}
