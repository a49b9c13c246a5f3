import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { pino } from 'pino';
import { perCallExecutor } from './helpers.js';

const saved = { ...process.env };
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

const printEnv = 'import os, json; print(json.dumps(dict(os.environ), sort_keys=True))';

describe('the script environment', () => {
  it('removes secret-looking variables name by name and keeps the safe set', async () => {
    const secrets = [
      'OPENAI_API_KEY', 'GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'GCP_CREDENTIALS', 'MY_PASSWD',
      'BASIC_AUTH', 'SENTRY_DSN', 'SLACK_WEBHOOK_URL', 'X_BEARER', 'SERVICE_APIKEY', 'MY_CREDS', 'lower_token',
    ];
    const safe = ['LANG', 'LC_ALL', 'TERM', 'TZ', 'XDG_RUNTIME_DIR', 'CONDA_DEFAULT_ENV', 'TMP', 'TEMP', 'SHELL', 'LOGNAME'];
    const { executor } = perCallExecutor();
    // TMP and TEMP must stay real folders: Node's own tmpdir() reads them.
    const value = (name: string) => (name === 'TMP' || name === 'TEMP' ? tmpdir() : `value-of-${name}`);
    for (const name of [...secrets, ...safe]) process.env[name] = value(name);
    process.env.RANDOM_SETTING = 'not in the safe set';
    const env = JSON.parse((await executor.execute({ sessionId: 's', code: printEnv })).output) as Record<string, string>;
    for (const name of secrets) expect(env[name], name).toBeUndefined();
    for (const name of safe) expect(env[name], name).toBe(value(name));
    expect(env.RANDOM_SETTING).toBeUndefined();
    expect(env.PATH).toContain(process.env.PATH); // pyenv's shim may prepend its own bin
    expect(env.PYTHONDONTWRITEBYTECODE).toBe('1');
    expect(env.PYTHONIOENCODING).toBe('utf-8');
    expect(env.PYTHONUNBUFFERED).toBe('1');
    expect(env.HERMES_RPC_SOCKET).toBeTruthy();
    expect(env.HERMES_RPC_TOKEN).toBeTruthy();
  });

  it('passes only four HERMES_* variables and logs the dropped ones at debug level', async () => {
    // Start from none: CI's own HERMES_* settings (a test image name) would be dropped too.
    for (const name of Object.keys(process.env)) if (name.startsWith('HERMES_')) delete process.env[name];
    for (const name of ['HERMES_HOME', 'HERMES_PROFILE', 'HERMES_CONFIG', 'HERMES_ENV', 'HERMES_BASE_URL', 'HERMES_KANBAN_DB']) {
      process.env[name] = name === 'HERMES_HOME' ? tmpdir() : `v-${name}`;
    }
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });
    const { executor } = perCallExecutor({}, { logger });
    const env = JSON.parse((await executor.execute({ sessionId: 's', code: printEnv })).output) as Record<string, string>;
    expect(Object.keys(env).filter((name) => name.startsWith('HERMES_')).sort()).toEqual([
      'HERMES_CONFIG', 'HERMES_ENV', 'HERMES_HOME', 'HERMES_PROFILE', 'HERMES_RPC_SOCKET', 'HERMES_RPC_TOKEN',
    ]);
    const log = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).find((entry) => entry.msg.includes('dropped'));
    expect(log?.level).toBe(20);
    expect(log?.msg).toContain('execute_code: dropped 2 non-allowlisted HERMES_* var(s)');
    expect(log?.msg).toContain('HERMES_BASE_URL, HERMES_KANBAN_DB');
  });

  it('passes names listed in terminal.env_passthrough even when they look secret', async () => {
    process.env.MY_CUSTOM_KEY = 'k1';
    process.env.HERMES_KANBAN_DB = '/tmp/kanban.db';
    process.env.OTHER_TOKEN = 't';
    const { executor } = perCallExecutor({ terminal: { env_passthrough: ['MY_CUSTOM_KEY', 'HERMES_KANBAN_DB'] } });
    const env = JSON.parse((await executor.execute({ sessionId: 's', code: printEnv })).output) as Record<string, string>;
    expect(env.MY_CUSTOM_KEY).toBe('k1');
    expect(env.HERMES_KANBAN_DB).toBe('/tmp/kanban.db');
    expect(env.OTHER_TOKEN).toBeUndefined();
  });

  it('gives terminal commands run from a script the same scrubbing', async () => {
    process.env.SOME_SECRET = 'hidden';
    process.env.PASSED_TOKEN = 'shown';
    const { executor } = perCallExecutor({ terminal: { env_passthrough: ['PASSED_TOKEN'] } });
    const result = await executor.execute({
      sessionId: 's',
      code: 'from hermes_tools import terminal; print(terminal("echo [$SOME_SECRET] [$PASSED_TOKEN]")["output"].strip())',
    });
    expect(result.output).toBe('[] [shown]\n');
  });
});

describe('project and strict modes', () => {
  function fakeVenv(): string {
    const venv = mkdtempSync(join(tmpdir(), 'hermes-venv-'));
    mkdirSync(join(venv, 'bin'));
    const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
    symlinkSync(python, join(venv, 'bin', 'python'));
    return venv;
  }
  const probe = 'import os, sys; print(os.getcwd()); print(sys.executable)';

  it('project mode runs in the session folder with the active virtualenv', async () => {
    process.env.VIRTUAL_ENV = fakeVenv();
    const { executor, cwd } = perCallExecutor({ code_execution: { mode: 'project' } });
    const [dir, python] = (await executor.execute({ sessionId: 's', code: probe })).output.trim().split('\n');
    expect(realpathSync(dir)).toBe(realpathSync(cwd));
    expect(python).toBe(join(process.env.VIRTUAL_ENV, 'bin', 'python'));
  });

  it('project mode falls back to the default interpreter when the venv is broken', async () => {
    process.env.VIRTUAL_ENV = join(tmpdir(), 'no-such-venv');
    const { executor } = perCallExecutor({ code_execution: { mode: 'project' } });
    const [, python] = (await executor.execute({ sessionId: 's', code: probe })).output.trim().split('\n');
    expect(python).not.toContain('no-such-venv');
  });

  it('strict mode runs in the staging folder with the default interpreter whatever VIRTUAL_ENV says', async () => {
    process.env.VIRTUAL_ENV = fakeVenv();
    const { executor, cwd } = perCallExecutor({ code_execution: { mode: 'strict' } });
    const result = await executor.execute({
      sessionId: 's',
      code: probe + '\nprint(sorted(os.listdir(".")))',
    });
    const [dir, python, listing] = result.output.trim().split('\n');
    expect(dir).not.toBe(realpathSync(cwd));
    expect(dir).toMatch(/hermes-exec-/);
    expect(listing).toContain("'hermes_tools.py'");
    expect(python).not.toContain(process.env.VIRTUAL_ENV);
  });
});
