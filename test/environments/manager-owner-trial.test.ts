import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { EnvironmentManager, loadProviderRegistry } from '../../src/environments/index.js';
import { testSetup } from './helpers.js';

/*
 * Its own file: sandboxWorks() asks bubblewrap once per process, so a trial run by another
 * test would hide whether this one ran it.
 */
describe('EnvironmentManager owner sessions', () => {
  let marker: string;
  let savedPath: string | undefined;

  beforeEach(() => {
    // A stand-in bwrap first on PATH that records each call and fails, as a bwrap without namespaces does.
    const bin = mkdtempSync(join(tmpdir(), 'hermes-fake-bwrap-'));
    marker = join(bin, 'calls.txt');
    writeFileSync(join(bin, 'bwrap'), `#!/bin/sh\necho "$*" >> '${marker}'\nexit 1\n`);
    chmodSync(join(bin, 'bwrap'), 0o755);
    savedPath = process.env.PATH;
    process.env.PATH = `${bin}${delimiter}${savedPath ?? ''}`;
  });

  afterEach(() => {
    process.env.PATH = savedPath;
  });

  it('run on terminal.backend without the bubblewrap trial that only other people\'s backend needs', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hermes-owner-'));
    const { config, paths } = testSetup({ terminal: { backend: 'local', platform_backend: 'auto', cwd } });
    const { registry } = await loadProviderRegistry({ config, paths });
    const manager = new EnvironmentManager({ config, paths, registry });
    expect(manager.provider.name).toBe('local');
    const environment = await manager.environmentFor('s');
    expect((await environment.execute('echo owner-ran')).output).toContain('owner-ran');
    expect(existsSync(marker)).toBe(false);
    // Others' backend still asks bubblewrap (so the check above could have failed), and warns when it cannot isolate.
    const { others, warning } = manager.backends;
    expect(readFileSync(marker, 'utf8')).toContain('--unshare-pid');
    expect(others.name).toBe('local');
    expect(warning).toContain('cannot make its namespaces');
    expect(manager.provider).toBe(manager.backends.owner);
    await manager.closeAll();
  });

  it('still fail on an unknown terminal.platform_backend, as choosing both backends does', async () => {
    const { config, paths } = testSetup({ terminal: { backend: 'local', platform_backend: 'nosuchbox' } });
    const { registry } = await loadProviderRegistry({ config, paths });
    const manager = new EnvironmentManager({ config, paths, registry });
    await expect(manager.environmentFor('s')).rejects.toThrow(/unknown backend "nosuchbox"; known backends: local/);
    expect(() => manager.backends).toThrow(/unknown backend "nosuchbox"/);
  });
});
