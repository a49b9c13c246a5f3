import { HermesError } from '../shared/errors.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { errorMessage } from '../shared/errors.js';
import { addStrippedEnvKeys } from './child-env.js';
import type { TerminalEnvironmentProvider } from './provider.js';
import { SafeProvider } from './safe-provider.js';

/** Names of built-in backends; plugins can never take them, even before the built-in exists. */
export const RESERVED_BACKEND_NAMES: readonly string[] = Object.freeze([
  'local', 'sandbox', 'docker', 'ssh', 'singularity', 'modal', 'managed_modal', 'daytona', 'vercel_sandbox',
]);

const NAME_PATTERN = /^[a-z0-9_]+$/;

/** A registration or lookup of a terminal backend that cannot be done. */
export class BackendError extends HermesError {
  override readonly name = 'BackendError';
  constructor(code: 'BACKEND_REFUSED' | 'BACKEND_UNKNOWN' | 'BACKEND_UNAVAILABLE' | 'SANDBOX_WORKSPACE_UNSAFE', message: string) {
    super(code, message);
  }
}

/**
 * The terminal backends this gateway knows: built-in ones and those plugins registered.
 * Lookups are case-insensitive; every read of a provider goes through SafeProvider.
 */
export class ProviderRegistry {
  private readonly providers = new Map<string, SafeProvider>();
  private readonly logger: Logger;

  constructor(options: { logger?: Logger } = {}) {
    this.logger = options.logger ?? silentLogger();
  }

  /**
   * Adds a backend. `source` is `builtin` or the registering plugin's name; plugins may not
   * take a reserved name or one already registered. Throws a BackendError naming the plugin
   * and the backend when refused (the plugin's other registrations are unaffected).
   */
  register(provider: TerminalEnvironmentProvider, source = 'builtin'): SafeProvider {
    const who = source === 'builtin' ? 'built-in backend' : `plugin "${source}"`;
    let rawName: unknown;
    try {
      rawName = provider.name;
    } catch (error) {
      throw new BackendError('BACKEND_REFUSED', `${who}: reading the backend's name threw (${errorMessage(error)}); the backend was not registered`);
    }
    if (typeof rawName !== 'string' || !NAME_PATTERN.test(rawName.toLowerCase())) {
      throw new BackendError('BACKEND_REFUSED', `${who}: backend name ${JSON.stringify(rawName)} is invalid; use lower-case letters, digits and _ (it becomes terminal.backend)`);
    }
    if (typeof provider.createEnvironment !== 'function') {
      throw new BackendError('BACKEND_REFUSED', `${who}: backend "${rawName}" has no createEnvironment(options) method; it was not registered`);
    }
    const name = rawName.toLowerCase();
    if (source !== 'builtin' && RESERVED_BACKEND_NAMES.includes(name)) {
      throw new BackendError('BACKEND_REFUSED', `${who}: cannot register backend "${name}": the name is reserved for a built-in backend; rename the plugin's backend`);
    }
    const existing = this.providers.get(name);
    if (existing) {
      throw new BackendError('BACKEND_REFUSED', `${who}: cannot register backend "${name}": ${existing.builtin ? 'a built-in backend' : `plugin "${existing.source}"`} already registered it`);
    }
    const safe = new SafeProvider(provider, name, source, this.logger);
    this.providers.set(name, safe);
    // Secrets of every registered backend leave every child, whatever backend is active.
    addStrippedEnvKeys(safe.stripEnvKeys);
    this.logger.debug({ backend: name, source }, `registered terminal backend ${name} (${source})`);
    return safe;
  }

  /** The backend of that name, any case; undefined when none. */
  get(name: string): SafeProvider | undefined {
    return this.providers.get(name.toLowerCase());
  }

  /** Like get, but throws a BackendError listing the known names. */
  require(name: string): SafeProvider {
    const found = this.get(name);
    if (!found) {
      throw new BackendError('BACKEND_UNKNOWN', `terminal.backend: unknown backend "${name}"; known backends: ${this.names().join(', ')} (a plugin's backend appears once the plugin is enabled: hermes plugins enable <name>)`);
    }
    return found;
  }

  has(name: string): boolean {
    return this.providers.has(name.toLowerCase());
  }

  /** Registered names, built-ins first, each group in registration order. */
  names(): string[] {
    return this.list().map((provider) => provider.name);
  }

  list(): SafeProvider[] {
    const all = [...this.providers.values()];
    return [...all.filter((p) => p.builtin), ...all.filter((p) => !p.builtin)];
  }

  /**
   * The union of every registered backend's `stripEnvKeys` (for `hermes doctor` and tests;
   * buildChildEnv applies the same names on its own, so no child ever sees them).
   */
  strippedEnvKeys(): Set<string> {
    const keys = new Set<string>();
    for (const provider of this.providers.values()) for (const key of provider.stripEnvKeys) keys.add(key);
    return keys;
  }
}
