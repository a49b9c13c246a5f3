import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings, SettingsStore, validateConfig, watchConfig, type ConfigWatcher } from '../../src/config/index.js';

/*
 * Bad model settings are refused with the key path and the fix: an unknown provider, a
 * fallback without a model, a key variable that is not set, at start and on a hot reload.
 */
let home: string | undefined;
let watcher: ConfigWatcher | undefined;
afterEach(() => {
  watcher?.close();
  watcher = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

describe('model settings', () => {
  it('an Anthropic provider takes its endpoint and key variable by default; fallbacks take their provider\'s', () => {
    const { model } = validateConfig({ model: { provider: 'anthropic', name: 'claude-x', fallbacks: [{ provider: 'openai', model: 'gpt-x' }] } }, 'config.yaml').config;
    expect(model).toMatchObject({ provider: 'anthropic', base_url: 'https://api.anthropic.com', api_key_env: 'ANTHROPIC_API_KEY', prompt_caching: true, thinking_budget: null });
    expect(model.fallbacks).toEqual([{ provider: 'openai', base_url: 'https://api.openai.com/v1', model: 'gpt-x', api_key_env: 'OPENAI_API_KEY' }]);
    expect(validateConfig({}, 'config.yaml').config.model.provider).toBe('openai');
  });

  it('an unknown provider is refused with the key and the choices', () => {
    expect(() => validateConfig({ model: { provider: 'gemini' } }, 'config.yaml')).toThrow(/config\.yaml: model\.provider: expected one of openai, anthropic/);
  });

  it('a fallback without a model is refused with its place in the list', () => {
    expect(() => validateConfig({ model: { fallbacks: [{ provider: 'anthropic' }] } }, 'config.yaml')).toThrow(/model\.fallbacks\.0\.model: every fallback needs a model/);
  });

  it('the gateway does not start when a key variable the model needs is not set, and says which', async () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-model-keys-'));
    writeFileSync(join(home, 'config.yaml'), 'model:\n  provider: anthropic\n  name: claude-x\n');
    const { startGateway } = await import('../../src/cli/commands/gateway.js');
    const loaded = loadSettings({ home, env: {}, loadEnv: false });
    await expect(startGateway(loaded, { env: {} })).rejects.toThrow(/config\.yaml: model\.api_key_env: ANTHROPIC_API_KEY is not set \(the Anthropic API needs a key\); put ANTHROPIC_API_KEY=… in HERMES_HOME\/\.env/);
  });

  it('a hot reload that names an unset fallback key is refused, the running model stays, and a later good change applies', () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-model-keys-'));
    const file = join(home, 'config.yaml');
    writeFileSync(file, 'model:\n  name: first\n');
    const logged: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    const store = new SettingsStore(loadSettings({ home, env: {}, loadEnv: false }));
    watcher = watchConfig({ store, exportTo: {}, logger });
    writeFileSync(file, 'model:\n  name: second\n  fallbacks:\n    - { provider: anthropic, model: claude-y, api_key_env: MISSING_FALLBACK_KEY }\n');
    expect(watcher.reload()).toEqual({ applied: [], needsRestart: [] });
    expect(store.current().config.model.name).toBe('first');
    expect(logged.join('\n')).toMatch(/model\.fallbacks\[0\]\.api_key_env: MISSING_FALLBACK_KEY is not set \(the key of fallback claude-y\).*the running settings stay/);
    writeFileSync(file, 'model:\n  name: third\n');
    expect(watcher.reload().applied).toContain('model.name');
    expect(store.current().config.model.name).toBe('third');
  });
});
