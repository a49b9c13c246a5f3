import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/shared/package-root.js';
import { builtCli } from '../helpers/hermes-process.js';
import { bundleIsCurrent, type ExecBundleManifest } from '../../src/cli/exec-bundle.js';

interface Loads {
  stdout: string;
  stderr: string;
  status: number | null;
  /** Every module file loaded, relative to the package root: ES modules in load order, then what require() loaded. */
  loaded: string[];
}

/**
 * Runs the built CLI with a module hook that lists every ES module it loads (file: URLs, in
 * order) and, at exit, every file in require()'s cache (CommonJS packages, the bundle's externals).
 */
function loadsOf(args: string[], input?: string, options: { env?: NodeJS.ProcessEnv; config?: string } = {}): Loads {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-startup-'));
  if (options.config !== undefined) writeFileSync(join(dir, 'config.yaml'), options.config);
  const hooks = join(dir, 'hooks.mjs');
  const log = join(dir, 'loaded.txt');
  writeFileSync(hooks, `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n');\n  return next(url, context);\n}\n`);
  const register = join(dir, 'register.cjs');
  writeFileSync(
    register,
    `const { register } = require('node:module');\nconst { appendFileSync } = require('node:fs');\nconst { pathToFileURL } = require('node:url');\n` +
      `register(${JSON.stringify(pathToFileURL(hooks).href)});\n` +
      `process.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(require.cache).map((file) => pathToFileURL(file).href + '\\n').join('')));\n`,
  );
  writeFileSync(log, '');
  const run = spawnSync(process.execPath, ['--require', register, builtCli, ...args], { encoding: 'utf8', cwd: dir, env: { ...process.env, HERMES_HOME: dir, HERMES_EXEC_BUNDLE: '', ...options.env }, input });
  const root = pathToFileURL(packageRoot()).href;
  const loaded = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean).map((url) => url.replace(`${root}/`, '')))].filter((url) => url !== pathToFileURL(register).href);
  return { stdout: run.stdout, stderr: run.stderr, status: run.status, loaded };
}

const distDir = join(packageRoot(), 'dist');

/** The compiled modules and packages' files esbuild put into dist/exec-bundle, from its meta.json. */
function bundleInputs(): string[] {
  const meta = JSON.parse(readFileSync(join(distDir, 'exec-bundle/meta.json'), 'utf8')) as { inputs: Record<string, unknown> };
  return Object.keys(meta.inputs);
}

/** The bundle tests need the bundle of this build: `npm run build` makes it, a later `tsc` alone outdates it. */
function currentBundle(): ExecBundleManifest {
  const path = join(distDir, 'exec-bundle/manifest.json');
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` (npm test does)`);
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as ExecBundleManifest;
  if (!bundleIsCurrent(manifest, distDir)) throw new Error('dist/exec-bundle is older than dist/src (tsc ran after the bundle): run `npm run build`');
  return manifest;
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

  /** What a run of print(6 * 7) from the modules must load, and must not. */
  function expectLeanExecRun(run: Loads): void {
    const modules = run.loaded;
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('42\n');
    expect(run.status).toBe(0);
    const packages = new Set(modules.filter((url) => url.startsWith('node_modules/')).map((url) => url.split('/').slice(1, 3).join('/')));
    // Proves the hook saw the run's dependencies, so the absences below mean something.
    expect([...packages].some((name) => name.startsWith('execa/'))).toBe(true);
    for (const heavy of ['@modelcontextprotocol/sdk', '@slack/bolt', 'discord.js/', 'grammy/', 'openai/', 'hono/', 'better-sqlite3/']) {
      expect([...packages].filter((name) => name.startsWith(heavy))).toEqual([]);
    }
    expect(modules.filter((url) => /^dist\/src\/(gateway|agent|sessions|coordination|cron)\/|^dist\/src\/mcp\/(connection|transport)\.js$/.test(url))).toEqual([]);
    // On the local backend, the other backends' environments (SSH, containers, their file transfer) stay unloaded.
    expect(modules.filter((url) => /^dist\/src\/environments\/(ssh\/(ssh-environment|remote-shell)|docker\/docker-environment)\.js$|^dist\/src\/environments\/transfer\//.test(url))).toEqual([]);
    expect(modules).toContain('dist/src/environments/ssh/ssh-provider.js');
    // A script that asks for no risky call loads the approvals engine's lazy guards only.
    expect(modules.filter((url) => url.startsWith('dist/src/approvals/'))).toEqual(['dist/src/approvals/lazy-guard.js']);
  }

  it('exec with HERMES_EXEC_BUNDLE=0 runs a script from the modules without loading the MCP SDK, a chat platform\'s library, the model client, the gateway, another backend\'s environment or the approvals engine', () => {
    const run = loadsOf(['exec', '-'], 'print(6 * 7)\n', { env: { HERMES_EXEC_BUNDLE: '0' } });
    expect(run.loaded.filter((url) => url.startsWith('dist/exec-bundle/'))).toEqual([]);
    expect(run.loaded).toContain('dist/src/cli/commands/exec-run.js');
    expectLeanExecRun(run);
  });

  it('exec runs a script from dist/exec-bundle: of dist/ it loads only the program, exec.js and the bundle loader, and no MCP SDK, chat platform, model client or SQLite', () => {
    currentBundle();
    const run = loadsOf(['exec', '-'], 'print(6 * 7)\n');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('42\n');
    expect(run.status).toBe(0);
    // No exec-run.js and no other module of dist/src: the run came from the bundle (evaluated through vm, seen by no hook).
    const ours = run.loaded.filter((url) => url.startsWith('dist/'));
    // …and the settings' environment edge (no imports of its own), which says whether to use the bundle (HERMES_EXEC_BUNDLE).
    expect(ours.sort()).toEqual(['dist/src/cli/command-table.js', 'dist/src/cli/commands/exec.js', 'dist/src/cli/exec-bundle.js', 'dist/src/cli/main.js', 'dist/src/config/environment.js', 'dist/src/shared/package-root.js']);
    // Outside the bundle, only commander (the program) came from node_modules.
    expect(run.loaded.filter((url) => url.startsWith('node_modules/') && !url.startsWith('node_modules/commander/'))).toEqual([]);
    // And the bundle holds none of them, nor the gateway, the agent or the stores.
    const inside = bundleInputs();
    expect(inside).toContain('dist/src/cli/commands/exec-run.js');
    expect(inside.some((path) => path.startsWith('node_modules/execa/'))).toBe(true);
    expect(inside.filter((path) => /^node_modules\/(@modelcontextprotocol\/sdk|@slack\/bolt|discord\.js|grammy|openai|hono|better-sqlite3)\/|^dist\/src\/(gateway|agent|sessions|coordination|cron)\//.test(path))).toEqual([]);
  });

  it('the build\'s V8 code cache of the bundle is accepted by this Node', () => {
    const manifest = currentBundle();
    const loader = pathToFileURL(join(distDir, 'src/cli/exec-bundle.js')).href;
    const script = `import { evaluateBundle } from ${JSON.stringify(loader)};
import { readFileSync } from 'node:fs';
const { script, exports } = evaluateBundle(${JSON.stringify(join(distDir, 'exec-bundle', manifest.entry))}, readFileSync(${JSON.stringify(join(distDir, 'exec-bundle', manifest.cache))}));
console.log(JSON.stringify({ rejected: script.cachedDataRejected, exports: Object.keys(exports) }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: tmpdir() });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ rejected: false, exports: ['runExec'] });
  });

  it('exec from the bundle fails on a bad config.yaml with the file, the key and the reason', () => {
    currentBundle();
    const run = loadsOf(['exec', '-'], 'print(1)\n', { config: 'code_execution:\n  timeout: -3\n' });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^hermes: .*config\.yaml: code_execution\.timeout: expected a positive number, got -3\n$/);
    expect(run.loaded).not.toContain('dist/src/cli/commands/exec-run.js');
  });
});
