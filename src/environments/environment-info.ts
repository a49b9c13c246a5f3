import type { Environment } from './types.js';
import type { SafeProvider } from './safe-provider.js';

/** Which provider made each environment, so checks can read its flags from the environment alone. */
const made = new WeakMap<Environment, SafeProvider>();

/** Records the provider that created `environment` (the EnvironmentManager does this). */
export function tagEnvironment(environment: Environment, provider: SafeProvider): void {
  made.set(environment, provider);
}

/** The provider that created `environment`, when the EnvironmentManager made it. */
export function providerOf(environment: Environment): SafeProvider | undefined {
  return made.get(environment);
}

/**
 * True when the environment's backend declares `skipContainerGuards` (read fail-safe).
 * Unknown environments keep approvals on.
 */
export function environmentSkipsGuards(environment: Environment): boolean {
  return made.get(environment)?.skipContainerGuards ?? false;
}
