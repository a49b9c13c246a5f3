import { expect, it } from 'vitest';
import { defaultConfig, hermesPaths } from '../../src/config/index.js';
import { ProviderRegistry, builtinProviders } from '../../src/environments/index.js';

// What the core reads of each built-in backend: flags a provider leaves out take SafeProvider's defaults.
it('the built-in backends declare what the core reads of them', () => {
  const registry = new ProviderRegistry();
  for (const provider of builtinProviders({ config: defaultConfig(), paths: hermesPaths('/tmp/hermes-builtin-flags-test') })) registry.register(provider);
  const flags = registry.list().map((safe) => ({
    name: safe.name,
    isRemote: safe.isRemote,
    isContainer: safe.isContainer,
    skipContainerGuards: safe.skipContainerGuards,
    cachePathBase: safe.cachePathBase,
    stripEnvKeys: safe.stripEnvKeys,
    sessionIsolatedWhenNonpersistent: safe.sessionIsolatedWhenNonpersistent,
    alwaysSessionIsolated: safe.alwaysSessionIsolated,
  }));
  const host = { isContainer: false, skipContainerGuards: false, cachePathBase: null, stripEnvKeys: [] };
  expect(flags).toEqual([
    { name: 'local', ...host, isRemote: false, sessionIsolatedWhenNonpersistent: false, alwaysSessionIsolated: false },
    { name: 'sandbox', ...host, isRemote: false, sessionIsolatedWhenNonpersistent: true, alwaysSessionIsolated: true },
    { name: 'ssh', ...host, isRemote: true, sessionIsolatedWhenNonpersistent: false, alwaysSessionIsolated: false },
    {
      name: 'docker',
      isRemote: true,
      isContainer: true,
      skipContainerGuards: true,
      cachePathBase: '/tmp/hermes-cache',
      stripEnvKeys: [],
      sessionIsolatedWhenNonpersistent: true,
      alwaysSessionIsolated: false,
    },
  ]);
});
