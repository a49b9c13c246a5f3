import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/shared/index.js';
import { loadConfig, hermesPaths } from '../../src/config/index.js';

const home = () => mkdtempSync(join(tmpdir(), 'hermes-config-'));
const touched: string[] = [];
afterEach(() => {
  for (const name of touched.splice(0)) delete process.env[name];
});

describe('loading the configuration', () => {
  it('lays HERMES_HOME/.env under the environment without overriding what is set', () => {
    const dir = home();
    writeFileSync(join(dir, '.env'), 'HERMES_TEST_NEW=from-file\nHERMES_TEST_SET=from-file\n# comment\nQUOTED="a b"\n');
    touched.push('HERMES_TEST_NEW', 'HERMES_TEST_SET', 'QUOTED');
    process.env.HERMES_TEST_SET = 'from-shell';
    loadConfig({ home: dir });
    expect(process.env.HERMES_TEST_NEW).toBe('from-file');
    expect(process.env.HERMES_TEST_SET).toBe('from-shell');
    expect(process.env.QUOTED).toBe('a b');
  });

  it('uses HERMES_HOME, else ~/.hermes, for every path', () => {
    const paths = hermesPaths(undefined, { HERMES_HOME: '/srv/hermes' });
    expect(paths).toMatchObject({
      config: '/srv/hermes/config.yaml',
      env: '/srv/hermes/.env',
      logFile: '/srv/hermes/logs/agent.log',
      execCache: '/srv/hermes/cache/exec',
      stateDb: '/srv/hermes/state.db',
    });
    expect(hermesPaths(undefined, {}).home.endsWith('/.hermes')).toBe(true);
  });

  it('applies overrides over the file and defaults under both', () => {
    const dir = home();
    writeFileSync(join(dir, 'config.yaml'), 'code_execution:\n  timeout: 30\n  mode: strict\n');
    const { config } = loadConfig({ home: dir, overrides: { code_execution: { timeout: 3 } } });
    expect(config.code_execution).toMatchObject({ timeout: 3, mode: 'strict', max_tool_calls: 50 });
  });

  it('names every invalid key with its reason, and bad YAML with its line', () => {
    const dir = home();
    writeFileSync(join(dir, 'config.yaml'), 'code_execution:\n  timeout: -1\n  rpc_transport: loose\ngateway:\n  max_concurrent_turns: 1.5\n');
    let error: unknown;
    try {
      loadConfig({ home: dir });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as Error).message.split('\n');
    // In the schema's key order.
    expect(lines).toEqual([
      `${join(dir, 'config.yaml')}: code_execution.timeout: expected a positive number, got -1`,
      `${join(dir, 'config.yaml')}: code_execution.rpc_transport: expected one of unix, tcp, got "loose"`,
      `${join(dir, 'config.yaml')}: gateway.max_concurrent_turns: expected a positive integer, got 1.5`,
    ]);
    writeFileSync(join(dir, 'config.yaml'), 'code_execution:\n  timeout: [1\n');
    expect(() => loadConfig({ home: dir })).toThrow(/config\.yaml: line \d+ is not valid YAML/);
  });

  // hermes-agent reads code_execution.mode leniently; a mode it cannot read is project, with a warning.
  it.each([
    { raw: 'STRICT', mode: 'strict', warns: false },
    { raw: '"  project  "', mode: 'project', warns: false },
    { raw: '" Strict\t"', mode: 'strict', warns: false },
    { raw: 'loose', mode: 'project', warns: true },
    { raw: 'null', mode: 'project', warns: true },
    { raw: '3', mode: 'project', warns: true },
  ])('code_execution.mode: $raw reads as $mode', ({ raw, mode, warns }) => {
    const dir = home();
    writeFileSync(join(dir, 'config.yaml'), `code_execution:\n  mode: ${raw}\n  timeout: 7\n`);
    const { config, warnings } = loadConfig({ home: dir });
    expect(config.code_execution).toMatchObject({ mode, timeout: 7 });
    const about = warnings.filter((line) => line.includes('code_execution.mode'));
    expect(about).toEqual(warns ? [`${join(dir, 'config.yaml')}: code_execution.mode: expected project or strict, got ${raw === 'loose' ? '"loose"' : raw}; using project`] : []);
  });
});
