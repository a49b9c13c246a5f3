import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermes } from '../helpers/hermes-process.js';
import { tempFoldersPerTest } from '../helpers/temp-folders.js';

const temp = tempFoldersPerTest();
const home = () => temp('hermes-config-cli-');

/** A fresh HERMES_HOME whose config.yaml holds `yaml`. */
function homeWithConfig(yaml: string): { dir: string; file: string } {
  const dir = home();
  const file = join(dir, 'config.yaml');
  writeFileSync(file, yaml);
  return { dir, file };
}

describe('hermes config', () => {
  it('prints the path of config.yaml in HERMES_HOME', async () => {
    const dir = home();
    expect((await hermes(dir, ['config', 'path'])).stdout).toBe(`${join(dir, 'config.yaml')}\n`);
  });

  it('sets a value keeping comments and order, and gets it back', async () => {
    const { dir, file } = homeWithConfig('# my gateway\nterminal:\n  timeout: 99 # slow disk\ncode_execution:\n  mode: strict\n');
    const set = await hermes(dir, ['config', 'set', 'code_execution.timeout', '60']);
    expect(set.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('# my gateway\nterminal:\n  timeout: 99 # slow disk\ncode_execution:\n  mode: strict\n  timeout: 60\n');
    expect((await hermes(dir, ['config', 'get', 'code_execution.timeout'])).stdout).toBe('60\n');
    expect((await hermes(dir, ['config', 'get', 'code_execution.mode'])).stdout).toBe('strict\n');
    expect((await hermes(dir, ['config', 'get', 'terminal.env_passthrough'])).stdout).toBe('[]\n');
  });

  it('validates before writing: a bad value or an unknown key changes nothing', async () => {
    const { dir, file } = homeWithConfig('code_execution:\n  timeout: 30\n');
    const bad = await hermes(dir, ['config', 'set', 'code_execution.timeout', 'abc']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('config.yaml: code_execution.timeout: expected a positive number, got "abc"');
    const unknown = await hermes(dir, ['config', 'set', 'code_execution.timout', '5']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('code_execution.timout: unknown key');
    expect(readFileSync(file, 'utf8')).toBe('code_execution:\n  timeout: 30\n');
  });

  it('fails on an invalid file with the file, the key path and the reason, and reports unknown keys', async () => {
    const dir = home();
    writeFileSync(join(dir, 'config.yaml'), 'code_execution:\n  timeout: "abc"\n');
    const invalid = await hermes(dir, ['config', 'get', 'code_execution.timeout']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(`${join(dir, 'config.yaml')}: code_execution.timeout: expected a positive number, got "abc"`);

    writeFileSync(join(dir, 'config.yaml'), 'code_execution:\n  timeout: 5\n  tiemout: 6\nextra: 1\n');
    const unknown = await hermes(dir, ['config', 'get', 'code_execution.timeout']);
    expect(unknown.stdout).toBe('5\n');
    expect(unknown.stderr).toContain('unknown key "code_execution.tiemout"');
    expect(unknown.stderr).toContain('unknown key "extra"');
  });
});
