import type { HermesConfig } from '../src/config/index.js';
import type { PlatformReadiness, PlatformSetup } from '../src/gateway/platform.js';

/** A chat platform is ready when it is enabled and every token its setup names is set. */
export function tokenReadiness(
  setup: PlatformSetup,
  section: { enabled: boolean },
  config: HermesConfig,
  env: Readonly<Record<string, string | undefined>>,
  note = '',
): PlatformReadiness {
  const names = setup.tokenNames(config);
  return { enabled: section.enabled, ready: names.every((name) => Boolean(env[name])), detail: `needs ${names.join(' and ')}${note}` };
}
