import type { HermesConfig } from '../config/schema.js';
import type { ProviderRegistry } from './registry.js';
import type { SafeProvider } from './safe-provider.js';
import { findExecutable } from './which.js';
import { bwrapNamespaceTrial } from './sandbox/bwrap-probe.js';

/**
 * Who can start a session: `owner`, the person at this machine (`hermes chat`, `hermes exec`,
 * the web chat behind its token), or `others`, anyone a platform lets write to the bot
 * (Slack, Discord, Telegram). Others' sessions run on `terminal.platform_backend`.
 */
export type Audience = 'owner' | 'others';

/** The backends sessions run on, by audience, and the warning when others' sessions are not isolated. */
export interface BackendChoice {
  owner: SafeProvider;
  others: SafeProvider;
  /** Set when other people's sessions would run straight on this host. */
  warning?: string;
}

let trial: boolean | undefined;

/** True when bubblewrap is installed and can make its namespaces here (asked once). */
export function sandboxWorks(): boolean {
  if (trial !== undefined) return trial;
  const bwrap = process.platform === 'linux' ? findExecutable('bwrap') : undefined;
  trial = bwrap !== undefined && bwrapNamespaceTrial(bwrap).ok;
  return trial;
}

/** True for a backend whose commands run on this host with the gateway's rights: no wall between a script and this machine. */
export function runsUnisolated(provider: SafeProvider): boolean {
  return !provider.isRemote && !provider.isContainer && !provider.alwaysSessionIsolated;
}

/**
 * `terminal.backend` for the owner; for others `terminal.platform_backend`, where `auto` is
 * the owner's backend when that one is isolated already (sandbox, SSH, a container), else the
 * sandbox where bubblewrap works, else the owner's backend with a warning.
 */
export function chooseBackends(config: HermesConfig, registry: ProviderRegistry, canSandbox: () => boolean = sandboxWorks): BackendChoice {
  const owner = registry.require(config.terminal.backend);
  const wanted = config.terminal.platform_backend;
  let others = owner;
  if (wanted !== 'auto') others = registry.require(wanted);
  else if (runsUnisolated(owner) && registry.has('sandbox') && canSandbox()) others = registry.require('sandbox');
  if (!runsUnisolated(others)) return { owner, others };
  const why = wanted === 'auto'
    ? `bubblewrap is ${findExecutable('bwrap') ? 'installed but cannot make its namespaces here' : 'not installed (apt-get install bubblewrap)'}`
    : `terminal.platform_backend is "${wanted}"`;
  return {
    owner,
    others,
    warning:
      `sessions from Slack, Discord and Telegram run on the "${others.name}" backend with no isolation (${why}): ` +
      "anyone allowed to message the bot can read and change what this machine's user can, the gateway's HERMES_HOME and environment included. " +
      'Install bubblewrap, or set terminal.platform_backend to sandbox, ssh or docker.',
  };
}
