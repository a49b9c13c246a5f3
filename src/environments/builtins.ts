import type { HermesConfig } from '../config/schema.js';
import type { HermesPaths } from '../config/paths.js';
import type { TerminalEnvironmentProvider } from './provider.js';
import { LocalProvider } from './local-provider.js';
import { SandboxProvider } from './sandbox/sandbox-provider.js';

/**
 * The built-in backends available today. `ssh` and `docker` are reserved names (see
 * RESERVED_BACKEND_NAMES) whose providers arrive with issue 8.
 */
export function builtinProviders(deps: { config: HermesConfig; paths: HermesPaths }): TerminalEnvironmentProvider[] {
  return [new LocalProvider(deps), new SandboxProvider(deps)];
}
