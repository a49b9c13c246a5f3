import { describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EnvironmentManager, LocalEnvironment, ProviderRegistry, buildChildEnv, environmentSkipsGuards, providerOf,
  type CreateEnvironmentOptions, type Environment, type TerminalEnvironmentProvider,
} from '../../src/environments/index.js';
import { loadProviderRegistry } from '../../src/environments/index.js';
import { testSetup } from './helpers.js';

/** A provider that counts the environments it makes and remembers which were cleaned up. */
function countingProvider(name: string, flags: Partial<TerminalEnvironmentProvider> = {}) {
  const made: Array<{ taskId: string; cleaned: boolean }> = [];
  const provider: TerminalEnvironmentProvider = {
    name,
    ...flags,
    // Destructures only what it knows, like a plugin written against an older core.
    createEnvironment({ cwd, timeout, taskId }: { cwd: string; timeout: number; taskId: string }): Environment {
      const entry = { taskId, cleaned: false };
      made.push(entry);
      const local = new LocalEnvironment({ cwd, timeout, childEnv: () => buildChildEnv() });
      return Object.assign(local, { cleanup: async () => { entry.cleaned = true; } });
    },
  };
  return { provider, made };
}

describe('EnvironmentManager', () => {
  it('gives each session its own environment when non-persistent and the backend isolates', async () => {
    const { config, paths } = testSetup({ terminal: { backend: 'isobox', container_persistent: false } });
    const registry = new ProviderRegistry();
    const { provider, made } = countingProvider('isobox', { sessionIsolatedWhenNonpersistent: true });
    registry.register(provider, 'p');
    const manager = new EnvironmentManager({ config, paths, registry });
    const [a1, a2, b] = await Promise.all([manager.environmentFor('a'), manager.environmentFor('a'), manager.environmentFor('b')]);
    expect(a1).toBe(a2);
    expect(a1).not.toBe(b);
    expect(made.map((m) => m.taskId).sort()).toEqual(['a', 'b']);
    await manager.release('a');
    expect(made.find((m) => m.taskId === 'a')?.cleaned).toBe(true);
    expect(made.find((m) => m.taskId === 'b')?.cleaned).toBe(false);
    expect(await manager.environmentFor('a')).not.toBe(a1);
    await manager.closeAll();
    expect(made.every((m) => m.cleaned)).toBe(true);
  });

  it('shares one environment when persistent, or when the backend does not isolate', async () => {
    for (const [persistent, isolates] of [[true, true], [false, false]] as const) {
      const { config, paths } = testSetup({ terminal: { backend: 'box', container_persistent: persistent } });
      const registry = new ProviderRegistry();
      const { provider, made } = countingProvider('box', { sessionIsolatedWhenNonpersistent: isolates });
      registry.register(provider, 'p');
      const manager = new EnvironmentManager({ config, paths, registry });
      // One environment; a local-process one gives each session a view with its own followed cwd.
      const [a, b] = [await manager.environmentFor('a'), await manager.environmentFor('b')];
      expect(a === b || (a.forSession !== undefined && Object.getPrototypeOf(a) === Object.getPrototypeOf(b))).toBe(true);
      expect(await manager.environmentFor('a')).toBe(a);
      await manager.release('a');
      expect(made).toHaveLength(1);
      expect(made[0].cleaned).toBe(false);
      await manager.closeAll();
    }
  });

  it('calls createEnvironment with extra option keys that a provider ignores', async () => {
    const { config, paths } = testSetup({ terminal: { backend: 'strict_box', cwd: tmpdir() } });
    const registry = new ProviderRegistry();
    const seen: CreateEnvironmentOptions[] = [];
    registry.register({
      name: 'strict_box',
      createEnvironment(options) {
        seen.push(options);
        const { cwd, timeout } = options;
        return new LocalEnvironment({ cwd, timeout, childEnv: () => buildChildEnv() });
      },
    }, 'p');
    const { provider } = countingProvider('older_box');
    registry.register(provider, 'p2');
    const manager = new EnvironmentManager({ config, paths, registry });
    const environment = await manager.environmentFor('s1');
    expect((await environment.execute('echo ok')).output).toBe('ok\n');
    const keys = Object.keys(seen[0]);
    expect(keys).toEqual(expect.arrayContaining(['cwd', 'timeout', 'taskId', 'logger', 'childEnv', 'persistent', 'hermesHome']));
    // The destructuring provider, selected through config, works with the same extra keys.
    const older = new EnvironmentManager({ config: { ...config, terminal: { ...config.terminal, backend: 'older_box' } }, paths, registry });
    expect((await (await older.environmentFor('s1')).execute('echo fine')).output).toBe('fine\n');
  });

  it('fails with the known names when terminal.backend is unknown, and when it is unavailable', async () => {
    const { config, paths } = testSetup({ terminal: { backend: 'ghost' } });
    const registry = new ProviderRegistry();
    registry.register(countingProvider('local').provider);
    registry.register({ ...countingProvider('offline').provider, isAvailable: () => false }, 'p');
    await expect(new EnvironmentManager({ config, paths, registry }).environmentFor('s')).rejects.toThrow(/unknown backend "ghost"; known backends: local, offline/);
    const offline = { ...config, terminal: { ...config.terminal, backend: 'offline' } };
    await expect(new EnvironmentManager({ config: offline, paths, registry }).environmentFor('s')).rejects.toThrow(/not available on this host; run `hermes doctor`/);
  });

  it('tags environments with their provider so guards can read skipContainerGuards', async () => {
    const { config, paths } = testSetup({ terminal: { backend: 'boxed' } });
    const registry = new ProviderRegistry();
    registry.register(countingProvider('boxed', { isContainer: true }).provider, 'p');
    const environment = await new EnvironmentManager({ config, paths, registry }).environmentFor('s');
    expect(providerOf(environment)?.name).toBe('boxed');
    expect(environmentSkipsGuards(environment)).toBe(true);
    expect(environmentSkipsGuards(new LocalEnvironment({ cwd: tmpdir(), timeout: 5, childEnv: () => ({}) }))).toBe(false);
  });

  it('strips every provider\'s stripEnvKeys from real children, even when passed through', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hermes-strip-'));
    const { config, paths } = testSetup({
      terminal: { backend: 'local', cwd, env_passthrough: ['ACMEBOX_TOKEN', 'VISIBLE_TOKEN'] },
    });
    const { registry } = await loadProviderRegistry({ config, paths });
    registry.register({ ...countingProvider('acmebox').provider, stripEnvKeys: new Set(['ACMEBOX_TOKEN']) }, 'acme');
    const source = { ...process.env, ACMEBOX_TOKEN: 'sekrit-acme', VISIBLE_TOKEN: 'shown' };
    const manager = new EnvironmentManager({ config, paths, registry, source });
    const environment = await manager.environmentFor('s');
    // The active backend is local, not acmebox: the key is stripped whatever is active.
    const result = await environment.execute('env', { env: { ACMEBOX_TOKEN: 'via-per-command-env' } });
    expect(result.output).toContain('VISIBLE_TOKEN=shown');
    expect(result.output).not.toContain('ACMEBOX_TOKEN');
    // And a child any other caller builds does not see it either: the policy holds the names once, for everyone.
    const direct = buildChildEnv({ source, passthrough: ['ACMEBOX_TOKEN'] });
    expect(direct.ACMEBOX_TOKEN).toBeUndefined();
    const command = environment.hostCommand!(['env'], { env: { ...direct, ACMEBOX_TOKEN: 'x' } });
    expect(command.env.ACMEBOX_TOKEN).toBeUndefined();
    await manager.closeAll();
  });
});
