import { resolve } from 'node:path';
import type { HermesConfig } from '../config/schema.js';
import type { HermesPaths } from '../config/paths.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import { buildChildEnv } from './child-env.js';
import { tagEnvironment } from './environment-info.js';
import { BackendError, type ProviderRegistry } from './registry.js';
import type { SafeProvider } from './safe-provider.js';
import type { Environment } from './types.js';

export interface EnvironmentManagerOptions {
  config: HermesConfig;
  paths: HermesPaths;
  registry: ProviderRegistry;
  logger?: Logger;
  /** The variables children choose from; defaults to process.env. */
  source?: NodeJS.ProcessEnv;
}

/** The key of the one environment all sessions share. */
const SHARED = 'default';

/**
 * Gives each session the environment of the configured `terminal.backend`. One environment
 * is shared by all sessions, except when `terminal.container_persistent` is false and the
 * backend is `sessionIsolatedWhenNonpersistent`: then each session gets its own.
 */
export class EnvironmentManager {
  private readonly environments = new Map<string, Promise<Environment>>();
  private readonly logger: Logger;

  constructor(private readonly options: EnvironmentManagerOptions) {
    this.logger = options.logger ?? silentLogger();
  }

  /** The active backend (throws a BackendError listing the known ones when it is unknown). */
  get provider(): SafeProvider {
    return this.options.registry.require(this.options.config.terminal.backend);
  }

  /** Whether each session gets its own environment. */
  get isolated(): boolean {
    const provider = this.provider;
    return provider.alwaysSessionIsolated || (!this.options.config.terminal.container_persistent && provider.sessionIsolatedWhenNonpersistent);
  }

  /**
   * The environment the session's commands, file tools and scripts run in; created on
   * first use. Pass this function to the agent as `environmentFor`.
   */
  environmentFor = async (sessionId: string): Promise<Environment> => {
    const key = this.isolated ? sessionId : SHARED;
    let pending = this.environments.get(key);
    if (!pending) {
      pending = this.create(key);
      this.environments.set(key, pending);
      pending.catch(() => this.environments.delete(key));
    }
    return pending;
  };

  /** The scrubbed variables every child gets: secrets and every provider's stripEnvKeys out. */
  childEnv(): Record<string, string> {
    return buildChildEnv({
      source: this.options.source,
      passthrough: this.options.config.terminal.env_passthrough,
      strip: this.options.registry.strippedEnvKeys(),
      logger: this.logger,
      label: 'terminal',
    });
  }

  /** The session ended (`/new`, closed): its own environment, if it has one, is cleaned up. */
  async release(sessionId: string): Promise<void> {
    if (!this.isolated) return;
    await this.dispose(sessionId);
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

  private async create(key: string): Promise<Environment> {
    const provider = this.provider;
    if (!(await provider.isAvailable())) {
      throw new BackendError('BACKEND_UNAVAILABLE', `terminal.backend: backend "${provider.name}" is not available on this host; run \`hermes doctor\` to see what is missing, or choose another with \`hermes setup\``);
    }
    const { config, paths } = this.options;
    const environment = await provider.createEnvironment({
      cwd: config.terminal.cwd ? resolve(config.terminal.cwd) : process.cwd(),
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
