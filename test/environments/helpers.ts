import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema, deepMerge, hermesPaths, type ConfigOverrides, type HermesConfig, type HermesPaths } from '../../src/config/index.js';

/** A fresh HERMES_HOME in a temp folder and a validated config with `overrides`. */
export function testSetup(overrides: ConfigOverrides = {}): { config: HermesConfig; paths: HermesPaths; home: string } {
  const home = mkdtempSync(join(tmpdir(), 'hermes-env-home-'));
  const config = configSchema.parse(deepMerge({}, overrides));
  return { config, paths: hermesPaths(home), home };
}
