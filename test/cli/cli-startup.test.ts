import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/shared/package-root.js';
import { builtCli } from '../helpers/hermes-process.js';

/** Runs the built CLI with a module hook that lists every module it loads (file: URLs, in order). */
function loadsOf(args: string[], input?: string): { stdout: string; stderr: string; status: number | null; loaded: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-startup-'));
  const hooks = join(dir, 'hooks.mjs');
  const log = join(dir, 'loaded.txt');
  writeFileSync(hooks, `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n');\n  return next(url, context);\n}\n`);
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, builtCli, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, HERMES_HOME: dir }, input });
  const root = pathToFileURL(packageRoot()).href;
  const loaded = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((url) => url.replace(`${root}/`, ''));
  return { stdout: run.stdout, stderr: run.stderr, status: run.status, loaded };
}

describe('hermes start-up', () => {
  it('--help loads commander and the command table, and no command module, config or dependency besides', () => {
    const run = loadsOf(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Commands:');
    for (const name of ['gateway', 'chat', 'exec', 'setup', 'status', 'doctor', 'config', 'logs', 'plugins']) expect(run.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    const ours = run.loaded.filter((url) => url.startsWith('dist/'));
    expect(ours.sort()).toEqual(['dist/src/cli/command-table.js', 'dist/src/cli/main.js', 'dist/src/shared/package-root.js']);
    const packages = new Set(run.loaded.filter((url) => url.startsWith('node_modules/')).map((url) => url.split('/')[1]));
    expect([...packages]).toEqual(['commander']);
  });

  it('--version prints package.json\'s version', () => {
    const run = loadsOf(['--version']);
    const { version } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
    expect(run.stdout).toBe(`${version}\n`);
    expect(run.status).toBe(0);
  });

  it('a command loads its own module and no other command\'s', () => {
    const run = loadsOf(['config', 'path']);
    expect(run.status).toBe(0);
    const commands = run.loaded.filter((url) => url.startsWith('dist/src/cli/commands/'));
    expect(commands).toEqual(['dist/src/cli/commands/config.js']);
  });

  it('exec --help loads what --help loads and exec.js, and no config or dependency besides commander', () => {
    const run = loadsOf(['exec', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('--backend <name>');
    const ours = run.loaded.filter((url) => url.startsWith('dist/'));
    expect(ours.sort()).toEqual(['dist/src/cli/command-table.js', 'dist/src/cli/commands/exec.js', 'dist/src/cli/main.js', 'dist/src/shared/package-root.js']);
    const packages = new Set(run.loaded.filter((url) => url.startsWith('node_modules/')).map((url) => url.split('/')[1]));
    expect([...packages]).toEqual(['commander']);
  });

  it('exec runs a script without loading the MCP SDK, a chat platform\'s library, the model client, the gateway, another backend\'s environment or the approvals engine', () => {
    const run = loadsOf(['exec', '-'], 'print(6 * 7)\n');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('42\n');
    expect(run.status).toBe(0);
    const packages = new Set(run.loaded.filter((url) => url.startsWith('node_modules/')).map((url) => url.split('/').slice(1, 3).join('/')));
    // Proves the hook saw the run's dependencies, so the absences below mean something.
    expect([...packages].some((name) => name.startsWith('execa/'))).toBe(true);
    for (const heavy of ['@modelcontextprotocol/sdk', '@slack/bolt', 'discord.js/', 'grammy/', 'openai/', 'hono/', 'better-sqlite3/']) {
      expect([...packages].filter((name) => name.startsWith(heavy))).toEqual([]);
    }
    expect(run.loaded.filter((url) => /^dist\/src\/(gateway|agent|sessions|coordination|cron)\/|^dist\/src\/mcp\/(connection|transport)\.js$/.test(url))).toEqual([]);
    // On the local backend, the other backends' environments (SSH, containers, their file transfer) stay unloaded.
    expect(run.loaded.filter((url) => /^dist\/src\/environments\/(ssh\/(ssh-environment|remote-shell)|docker\/docker-environment)\.js$|^dist\/src\/environments\/transfer\//.test(url))).toEqual([]);
    expect(run.loaded).toContain('dist/src/environments/ssh/ssh-provider.js');
    // A script that asks for no risky call loads the approvals engine's lazy guards only.
    expect(run.loaded.filter((url) => url.startsWith('dist/src/approvals/'))).toEqual(['dist/src/approvals/lazy-guard.js']);
  });
});
