import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  liveConfig,
  liveEnv,
  loadSettings,
  setConfigValue,
  setDotEnvValue,
  SettingsStore,
  watchConfig,
  type ConfigChange,
  type ConfigWatcher,
  type Settings,
} from '../../src/config/index.js';
import { AccessPolicy } from '../../src/gateway/index.js';

/*
 * A running gateway's configuration follows config.yaml and .env: the watch sees a file
 * replaced (as `hermes config set` and editors do) and swaps in a new settings snapshot with
 * the keys that can change while running; the others are named as needing a restart. Holders
 * of the live view (the gateway, the agent) read the new snapshot; the old one never changes.
 */
describe('config watch: changes apply without a restart, or say they need one', () => {
  let home: string;
  let watcher: ConfigWatcher | undefined;
  const logged: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hermes-watch-'));
    logged.length = 0;
  });
  afterEach(() => {
    watcher?.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** Starts watching the loaded settings; resolves each change in turn. */
  function watching(env: NodeJS.ProcessEnv) {
    const store = new SettingsStore(loadSettings({ home, env, loadEnv: true }));
    const changes: ConfigChange[] = [];
    let wake: (() => void) | undefined;
    watcher = watchConfig({
      store,
      exportTo: env,
      logger,
      onChange: (change) => {
        changes.push(change);
        wake?.();
      },
    });
    const next = async (): Promise<ConfigChange> => {
      while (changes.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return changes.shift()!;
    };
    return { live: liveConfig(store), vars: liveEnv(store), store, next };
  }

  it('applies a new model, allow-list and display option to the running configuration, and names a port change as needing a restart', async () => {
    writeFileSync(join(home, 'config.yaml'), 'model:\n  name: old-model\n');
    const env: NodeJS.ProcessEnv = {};
    const { live, vars, store, next } = watching(env);
    const first = store.current();
    const model = live.model;
    const access = new AccessPolicy(live, vars);
    expect(access.isAllowed('telegram', '42')).toBe(false);

    setConfigValue(join(home, 'config.yaml'), 'model.name', 'new-model');
    expect(await next()).toEqual({ applied: ['model.name'], needsRestart: [] });
    expect(live.model.name).toBe('new-model');
    // A holder of the section (the model client) reads the new snapshot too; the old one stays as it was.
    expect(model.name).toBe('new-model');
    expect(first.config.model.name).toBe('old-model');
    expect(store.current()).not.toBe(first);

    writeFileSync(
      join(home, 'config.yaml'),
      'model:\n  name: new-model\nplatforms:\n  telegram:\n    allowed_users: [42]\n  web:\n    port: 9999\ndisplay:\n  tool_progress: off\n',
    );
    const change = await next();
    expect(change.applied.sort()).toEqual(['display.tool_progress', 'platforms.telegram.allowed_users']);
    expect(change.needsRestart).toEqual(['platforms.web.port']);
    expect(access.isAllowed('telegram', '42')).toBe(true);
    expect(live.display.tool_progress).toBe('off');
    // The running value stays until the restart.
    expect(live.platforms.web.port).toBe(8787);
    expect(logged.join('')).toContain('configuration reloaded');
  });

  it('a reload swaps the snapshot and tells each subscriber the new one, the old one and what changed; an unsubscribed one hears nothing', async () => {
    writeFileSync(join(home, 'config.yaml'), 'model:\n  name: before\n');
    const { store, next } = watching({});
    const heard: Array<{ next: Settings; previous: Settings; change: ConfigChange }> = [];
    const stopped: string[] = [];
    store.subscribe((next, previous, change) => heard.push({ next, previous, change }));
    const unsubscribe = store.subscribe((next) => stopped.push(next.config.model.name));
    unsubscribe();
    const before = store.current();

    setConfigValue(join(home, 'config.yaml'), 'model.name', 'after');
    await next();
    expect(heard).toHaveLength(1);
    expect(heard[0].previous).toBe(before);
    expect(heard[0].next).toBe(store.current());
    expect(heard[0].next.config.model.name).toBe('after');
    expect(heard[0].change).toEqual({ applied: ['model.name'], needsRestart: [] });
    expect(Object.isFrozen(heard[0].next.config.model)).toBe(true);
    expect(before.config.model.name).toBe('before');
    expect(stopped).toEqual([]);
    // Nothing changed: no swap, nobody told.
    expect(watcher!.reload()).toEqual({ applied: [], needsRestart: [] });
    expect(heard).toHaveLength(1);
  });

  it('the live view refuses writes: a change is a new snapshot', () => {
    const { live, vars } = watching({});
    expect(() => {
      (live.model as { name: string }).name = 'written';
    }).toThrow(TypeError);
    expect(() => {
      (vars as Record<string, string>).OPENAI_API_KEY = 'written';
    }).toThrow(TypeError);
    expect(live.model.name).toBe('');
  });

  it('keeps the running settings when the file becomes invalid, and says so in the log', async () => {
    writeFileSync(join(home, 'config.yaml'), 'model:\n  name: good\n');
    const { live } = watching({});
    writeFileSync(join(home, 'config.yaml'), 'model:\n  name: [unclosed\n');
    expect(watcher!.reload()).toEqual({ applied: [], needsRestart: [] });
    expect(live.model.name).toBe('good');
    expect(logged.join('')).toMatch(/config\.yaml changed but cannot be used; the running settings stay/);
    writeFileSync(join(home, 'config.yaml'), 'model:\n  temperature: 9\n');
    watcher!.reload();
    expect(live.model.temperature).toBeNull();
  });

  it('applies a key and an allow-list saved to .env; a variable the shell set wins, as at start', async () => {
    writeFileSync(join(home, '.env'), "OPENAI_API_KEY='sk-old'\n");
    const env: NodeJS.ProcessEnv = { SLACK_ALLOWED_USERS: 'U1' };
    const { vars, store, next } = watching(env);
    expect(vars.OPENAI_API_KEY).toBe('sk-old');
    setDotEnvValue(join(home, '.env'), 'OPENAI_API_KEY', 'sk-new');
    expect(await next()).toEqual({ applied: ['OPENAI_API_KEY'], needsRestart: [] });
    expect(vars.OPENAI_API_KEY).toBe('sk-new');
    expect(store.current().apiKey).toBe('sk-new');
    // Exported too: children started from now on choose from it.
    expect(env.OPENAI_API_KEY).toBe('sk-new');

    writeFileSync(join(home, '.env'), "OPENAI_API_KEY='sk-new'\nSLACK_ALLOWED_USERS=U2\nTELEGRAM_BOT_TOKEN=123:abc\n");
    expect(await next()).toEqual({ applied: [], needsRestart: ['TELEGRAM_BOT_TOKEN'] });
    expect(vars.SLACK_ALLOWED_USERS).toBe('U1');
    expect(vars.TELEGRAM_BOT_TOKEN).toBe('123:abc');
    // Names only in the log, never values.
    expect(logged.join('')).not.toContain('sk-new');
  });
});
