import { describe, expect, it } from 'vitest';
import { chooseBackends, EnvironmentManager, environmentKind, findExecutable, loadProviderRegistry } from '../../src/environments/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import { testSetup } from './helpers.js';

async function choose(terminal: ConfigOverrides['terminal'], canSandbox: boolean) {
  const setup = testSetup({ terminal });
  const { registry } = await loadProviderRegistry(setup);
  return chooseBackends(setup.config, registry, () => canSandbox);
}

describe('which backend other people\'s sessions run on', () => {
  it('auto puts them in the sandbox when the owner\'s backend is local and bubblewrap works', async () => {
    const choice = await choose({ backend: 'local' }, true);
    expect([choice.owner.name, choice.others.name, choice.warning]).toEqual(['local', 'sandbox', undefined]);
  });

  it('auto falls back to local with a loud warning when bubblewrap cannot run', async () => {
    const choice = await choose({ backend: 'local' }, false);
    expect(choice.others.name).toBe('local');
    expect(choice.warning).toMatch(/no isolation.*HERMES_HOME/);
  });

  it('auto keeps an owner\'s backend that isolates already (ssh, docker, sandbox)', async () => {
    for (const backend of ['ssh', 'docker', 'sandbox']) {
      const choice = await choose({ backend }, true);
      expect(choice.others.name).toBe(backend);
      expect(choice.warning).toBeUndefined();
    }
  });

  it('a platform_backend of local is obeyed, and warned about', async () => {
    const choice = await choose({ backend: 'sandbox', platform_backend: 'local' }, true);
    expect(choice.others.name).toBe('local');
    expect(choice.warning).toContain('terminal.platform_backend is "local"');
  });

  it('an unknown platform_backend is refused with the known names', async () => {
    await expect(choose({ platform_backend: 'nope' }, true)).rejects.toThrow(/unknown backend "nope".*local, sandbox/);
  });

  it.runIf(findExecutable('bwrap') !== undefined || process.env.CI === 'true')('the manager gives an owner\'s session the host and another person\'s the sandbox', async () => {
    const setup = testSetup({ terminal: { backend: 'local' } });
    const { registry } = await loadProviderRegistry(setup);
    const manager = new EnvironmentManager({ ...setup, registry });
    try {
      expect(environmentKind(await manager.environmentFor('web:1', 'owner'))).toBe('host');
      const theirs = await manager.environmentFor('telegram:42', 'others');
      expect(environmentKind(theirs)).toBe('isolated');
      expect((await theirs.execute('hostname')).output).toBe('hermes-sandbox\n');
    } finally {
      await manager.closeAll();
    }
  });
});
