import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig, validateConfig } from '../../src/config/index.js';
import { MAX_SECONDS } from '../../src/config/schema.js';
import { ConfigError } from '../../src/shared/index.js';

/** Every number in the defaults with its dotted key. */
function numberKeys(node: unknown, prefix = ''): Array<{ key: string; value: number }> {
  if (typeof node === 'number') return [{ key: prefix, value: node }];
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return [];
  return Object.entries(node).flatMap(([key, value]) => numberKeys(value, prefix ? `${prefix}.${key}` : key));
}

/** `{a: {b: value}}` from `a.b`. */
function nested(key: string, value: unknown): Record<string, unknown> {
  return key
    .split('.')
    .reverse()
    .reduce<unknown>((inner, part) => ({ [part]: inner }), value) as Record<string, unknown>;
}

/** The error lines validateConfig throws for `key: value`, or [] when it is accepted. */
function problems(key: string, value: unknown): string[] {
  try {
    validateConfig(nested(key, value), 'config.yaml');
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message.split('\n');
  }
}

// Durations by name: a new key that holds seconds is caught here without being listed.
const DURATION = /(^|_)(timeout|grace|interval|delay|age|ttl|seconds)(_|$)/;
const durations = numberKeys(defaultConfig()).filter(({ key }) => DURATION.test(key.split('.').pop()!));

let home: string | undefined;
afterEach(() => {
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

describe('bounds on durations and ports', () => {
  it('a config file with a timeout past what a Node timer can wait fails with the key and the limit', () => {
    home = mkdtempSync(join(tmpdir(), 'hermes-bounds-'));
    const file = join(home, 'config.yaml');
    writeFileSync(file, 'code_execution:\n  timeout: 3000000\nplatforms:\n  slack:\n    port: 70000\n');
    let error: unknown;
    try {
      loadConfig({ home, loadEnv: false });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message.split('\n')).toEqual([
      `${file}: code_execution.timeout: expected at most 2147483 seconds, got 3000000`,
      `${file}: platforms.slack.port: expected a port number from 1 to 65535, got 70000`,
    ]);
  });

  it('the limit is the longest delay setTimeout honours (2^31 - 1 ms)', () => {
    expect(MAX_SECONDS * 1000).toBeLessThanOrEqual(2 ** 31 - 1);
    expect((MAX_SECONDS + 1) * 1000).toBeGreaterThan(2 ** 31 - 1);
  });

  it('bounds every duration in the schema: the limit passes, one second more is refused', () => {
    // The known ones, so that a change of the name pattern cannot empty the list unnoticed.
    expect(durations.map(({ key }) => key)).toEqual(
      expect.arrayContaining([
        'model.timeout',
        'code_execution.timeout',
        'code_execution.kill_grace',
        'code_execution.kernel_idle_timeout',
        'terminal.timeout',
        'terminal.ssh.connect_timeout',
        'web.timeout',
        'approvals.timeout',
      ]),
    );
    for (const { key } of durations) {
      expect(problems(key, MAX_SECONDS), key).toEqual([]);
      expect(problems(key, MAX_SECONDS + 1), key).toEqual([`config.yaml: ${key}: expected at most 2147483 seconds, got 2147484`]);
      expect(problems(key, 0), key).toEqual([`config.yaml: ${key}: expected a positive number, got 0`]);
    }
  });

  it('validates ports as 1 to 65535; the web chat also takes 0 for any free port', () => {
    for (const key of ['terminal.ssh.port', 'platforms.slack.port']) {
      for (const bad of [0, -1, 65_536, 80.5, '8080']) {
        expect(problems(key, bad), `${key}=${String(bad)}`).toEqual([
          `config.yaml: ${key}: expected a port number from 1 to 65535, got ${JSON.stringify(bad)}`,
        ]);
      }
      expect(problems(key, 1)).toEqual([]);
      expect(problems(key, 65_535)).toEqual([]);
    }
    expect(problems('platforms.web.port', 0)).toEqual([]);
    expect(problems('platforms.web.port', 65_535)).toEqual([]);
    expect(problems('platforms.web.port', 65_536)).toEqual([
      'config.yaml: platforms.web.port: expected a port number from 0 to 65535 (0 picks any free port), got 65536',
    ]);
  });
});
