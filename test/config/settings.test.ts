import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings, SettingsStore, liveConfig, createSettings, defaultConfig, hermesPaths, type ConfigChange, type Settings } from '../../src/config/index.js';
import { ConfigError } from '../../src/shared/errors.js';

/*
 * config.yaml, HERMES_HOME/.env and the environment become one typed, frozen snapshot at
 * the edge: the key, allow-all and every value checked once, a bad one named by its key path.
 */
describe('settings: one frozen snapshot, read once', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-settings-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('holds the file, .env under the environment, the model key and allow-all, all frozen', () => {
    writeFileSync(join(home, 'config.yaml'), 'model:\n  name: m\n  api_key_env: MY_KEY\nplatforms:\n  telegram:\n    allowed_users: [42]\n');
    writeFileSync(join(home, '.env'), "MY_KEY='sk-from-file'\nGATEWAY_ALLOW_ALL_USERS=yes\nSHELL_SET=from-file\n");
    const env: NodeJS.ProcessEnv = { SHELL_SET: 'from-shell' };
    const settings = loadSettings({ home, env });
    expect(settings.config.model.name).toBe('m');
    expect(settings.apiKey).toBe('sk-from-file');
    expect(settings.allowAllUsers).toBe(true);
    expect(settings.env.SHELL_SET).toBe('from-shell');
    expect(settings.paths.config).toBe(join(home, 'config.yaml'));
    for (const part of [settings, settings.config, settings.config.model, settings.config.platforms.telegram.allowed_users, settings.env, settings.paths, settings.warnings]) {
      expect(Object.isFrozen(part)).toBe(true);
    }
    expect(() => {
      (settings.config.model as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    expect(() => {
      (settings.config.platforms.telegram.allowed_users as string[]).push('43');
    }).toThrow(TypeError);
    // The environment it was read from is not the snapshot: a later change there is not seen.
    env.MY_KEY = 'sk-later';
    expect(settings.env.MY_KEY).toBe('sk-from-file');
  });

  it('reads GATEWAY_ALLOW_ALL_USERS as hermes-agent does: 1, true, yes, on in any case; anything else is no', () => {
    const paths = hermesPaths(home);
    const allowAll = (value: string | undefined) => createSettings({ config: defaultConfig(), paths, env: { GATEWAY_ALLOW_ALL_USERS: value } }).allowAllUsers;
    for (const yes of ['1', 'true', 'TRUE', ' yes ', 'On']) expect(allowAll(yes)).toBe(true);
    for (const no of [undefined, '', '0', 'false', 'no', 'off', 'y', 'enabled']) expect(allowAll(no)).toBe(false);
  });

  it('a bad value fails with the file, the key path and the reason; nothing is returned', () => {
    writeFileSync(join(home, 'config.yaml'), 'platforms:\n  slack:\n    port: 70000\ncode_execution:\n  timeout: soon\n');
    let error: unknown;
    try {
      loadSettings({ home, env: {} });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as Error).message.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${join(home, 'config.yaml')}: platforms\\.slack\\.port: expected a port number from 1 to 65535, got 70000$`)));
    expect(lines).toContainEqual(expect.stringMatching(/: code_execution\.timeout: .*got "soon"$/));
  });

  it('an override is checked like the file: a bad port from the command line names its key', () => {
    expect(() => loadSettings({ home, env: {}, overrides: { platforms: { web: { port: -1 } } } })).toThrow(/platforms\.web\.port: expected a port number from 0 to 65535/);
  });

  it('the store swaps whole snapshots and tells every subscriber, even when one of them throws', () => {
    const paths = hermesPaths(home);
    const first = createSettings({ config: defaultConfig(), paths, env: {} });
    const store = new SettingsStore(first);
    const view = liveConfig(store);
    const model = view.model;
    const heard: Array<[Settings, Settings, ConfigChange]> = [];
    store.subscribe(() => {
      throw new Error('a broken subscriber');
    });
    store.subscribe((next, previous, change) => heard.push([next, previous, change]));
    const config = defaultConfig();
    config.model.name = 'second';
    const second = createSettings({ config, paths, env: { MODEL: 'x' } });
    const change = { applied: ['model.name'], needsRestart: [] };
    expect(() => store.swap(second, change)).toThrow(AggregateError);
    expect(heard).toEqual([[second, first, change]]);
    expect(store.current()).toBe(second);
    // The view and a section taken from it before the swap read the new snapshot; the old one is as it was.
    expect(view.model.name).toBe('second');
    expect(model.name).toBe('second');
    expect(first.config.model.name).toBe('');
    // Spread and JSON read the current snapshot too.
    expect({ ...view.model }.name).toBe('second');
    expect(JSON.parse(JSON.stringify(view)).model.name).toBe('second');
    // The caller's object is copied: changing it afterwards changes no snapshot.
    config.model.name = 'third';
    expect(store.current().config.model.name).toBe('second');
  });
});
