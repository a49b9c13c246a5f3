import type { HermesConfig } from '../config/schema.js';
import type { HermesPaths } from '../config/paths.js';
import type { TerminalEnvironmentProvider } from './provider.js';
import { LocalProvider } from './local-provider.js';
import { SandboxProvider } from './sandbox/sandbox-provider.js';
import { SshProvider } from './ssh/ssh-provider.js';
import { DockerProvider } from './docker/docker-provider.js';

/** The built-in backends: local, sandbox (bubblewrap), ssh and docker. */
export function builtinProviders(deps: { config: HermesConfig; paths: HermesPaths }): TerminalEnvironmentProvider[] {
  return [new LocalProvider(deps), new SandboxProvider(deps), new SshProvider(deps), new DockerProvider(deps)];
}
