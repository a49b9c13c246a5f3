import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDotEnv, setDotEnvValue } from '../../src/config/index.js';

describe('setDotEnvValue: one variable of HERMES_HOME/.env, written safely', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hermes-dotenv-'));
    file = join(dir, '.env');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces the line that set the variable (and drops later ones), keeps every other line, and leaves the file 0600', () => {
    writeFileSync(file, '# my keys\nOTHER=1\nexport OPENAI_API_KEY=sk-old\nOPENAI_API_KEY=sk-older\n', { mode: 0o644 });
    setDotEnvValue(file, 'OPENAI_API_KEY', 'sk-new#1=x');
    expect(readFileSync(file, 'utf8')).toBe("# my keys\nOTHER=1\nOPENAI_API_KEY='sk-new#1=x'\n");
    expect(readDotEnv(file)).toEqual({ OTHER: '1', OPENAI_API_KEY: 'sk-new#1=x' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    setDotEnvValue(file, 'MODEL_API_KEY', 'k2');
    expect(readDotEnv(file)).toEqual({ OTHER: '1', OPENAI_API_KEY: 'sk-new#1=x', MODEL_API_KEY: 'k2' });
  });

  it('refuses a value that would add lines or escape its quotes, and a bad name; the file stays as it was', () => {
    writeFileSync(file, 'OTHER=1\n');
    const attacks: Array<[string, string]> = [
      ['OPENAI_API_KEY', 'sk\nGATEWAY_ALLOW_ALL_USERS=true'],
      ['OPENAI_API_KEY', 'sk\rX=1'],
      ['OPENAI_API_KEY', "sk'\nX=1"],
      ['OPENAI_API_KEY', 'sk"x'],
      ['OPENAI_API_KEY', 'sk$(id)'],
      ['OPENAI_API_KEY', 'sk key'],
      ['OPENAI_API_KEY', ''],
      ['BAD NAME', 'x'],
      ['X=Y', 'x'],
    ];
    for (const [name, value] of attacks) {
      expect(() => setDotEnvValue(file, name, value), JSON.stringify([name, value])).toThrow(/nothing was written/);
    }
    expect(readFileSync(file, 'utf8')).toBe('OTHER=1\n');
  });
});
