import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { defaultConfig, validateConfig } from '../../src/config/index.js';

const file = join(import.meta.dirname, '../../config/default.yaml');

describe('config/default.yaml', () => {
  it('documents every key of the schema with the schema default', () => {
    const documented = parse(readFileSync(file, 'utf8'));
    const { config, warnings } = validateConfig(documented, file);
    expect(warnings).toEqual([]);
    // rpc_transport's default depends on the platform; this machine is not Windows.
    expect(config).toEqual(defaultConfig());
    expect(documented).toEqual(JSON.parse(JSON.stringify(defaultConfig())));
  });

  it('gives every key a one-line comment', () => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const undocumented = lines.filter((line) => /^\s+\w+: \S/.test(line) && !line.includes('#'));
    // A few keys are self-explaining (port numbers); all others carry a comment.
    expect(undocumented.map((line) => line.trim().split(':')[0]).filter((key) => key !== 'port')).toEqual([]);
  });
});
