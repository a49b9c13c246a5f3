import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleIsCurrent, type ExecBundleManifest } from '../src/cli/exec-bundle.js';
import { packageRoot } from '../src/shared/package-root.js';
import { fmt, median, timeRuns } from './stats.js';

/** Runs a command to its end (stdin given, output dropped); fails on a non-zero exit. */
function runToEnd(file: string, args: string[], stdin = '', env?: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'ignore', 'inherit'], env: env && { ...process.env, ...env } });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${file} ${args.join(' ')} exited ${code}`))));
    child.stdin.end(stdin);
  });
}

/**
 * How long the `hermes` CLI takes to start, each against its baseline in the same run:
 * `hermes --help` against `node -e 0` (target: within 100 ms) and `hermes exec` of print(1)
 * against `python3 -c pass` (target: within 150 ms), and `hermes exec --help` against `hermes --help`
 * (it should load no more than exec.js on top), and exec from the modules (HERMES_EXEC_BUNDLE=0)
 * against exec from dist/exec-bundle. Runs alternate so load hits both sides; the minimum is
 * printed beside the median, as it is the figure a busy machine disturbs least.
 */
export async function run(): Promise<void> {
  const cli = join(packageRoot(), 'dist/src/cli/main.js');
  const home = mkdtempSync(join(tmpdir(), 'hermes-bench-cli-'));
  const cwd = mkdtempSync(join(tmpdir(), 'hermes-bench-cli-cwd-'));
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  cwd: ${cwd}\n`);
  const node = process.execPath;
  const cases = {
    node: () => runToEnd(node, ['-e', '0']),
    help: () => runToEnd(node, [cli, '--help']),
    execHelp: () => runToEnd(node, [cli, 'exec', '--help']),
    python: () => runToEnd('python3', ['-c', 'pass']),
    exec: () => runToEnd(node, [cli, '--home', home, 'exec', '-'], 'print(1)\n', { HERMES_EXEC_BUNDLE: '' }),
    execModules: () => runToEnd(node, [cli, '--home', home, 'exec', '-'], 'print(1)\n', { HERMES_EXEC_BUNDLE: '0' }),
  };
  const manifest = join(packageRoot(), 'dist/exec-bundle/manifest.json');
  const bundled = existsSync(manifest) && bundleIsCurrent(JSON.parse(readFileSync(manifest, 'utf8')) as ExecBundleManifest);
  if (!bundled) console.log('hermes exec: dist/exec-bundle is missing or older than dist/src (run npm run build): exec runs from the modules');
  // Warm the file cache and the exec path once.
  for (const measure of Object.values(cases)) await measure();
  const times = 15;
  const samples: Record<keyof typeof cases, number[]> = { node: [], help: [], execHelp: [], python: [], exec: [], execModules: [] };
  for (let i = 0; i < times; i++) {
    for (const [name, measure] of Object.entries(cases) as Array<[keyof typeof cases, () => Promise<void>]>) {
      samples[name].push(...(await timeRuns(1, measure)));
    }
  }
  const m = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])) as Record<keyof typeof cases, number>;
  const least = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, Math.min(...values)])) as Record<keyof typeof cases, number>;
  console.log(
    `hermes --help: median ${fmt(m.help, 1)} ms vs node -e 0 ${fmt(m.node, 1)} ms ` +
      `(ratio ${fmt(m.help / m.node)}x, +${fmt(m.help - m.node, 1)} ms; target ≤ +100 ms)`,
  );
  console.log(
    `hermes exec print(1): median ${fmt(m.exec, 1)} ms vs python3 -c pass ${fmt(m.python, 1)} ms ` +
      `(ratio ${fmt(m.exec / m.python)}x, +${fmt(m.exec - m.python, 1)} ms; target ≤ +150 ms); ` +
      `minimum ${fmt(least.exec, 1)} vs ${fmt(least.python, 1)} ms (+${fmt(least.exec - least.python, 1)} ms)`,
  );
  console.log(
    `hermes exec print(1) from the modules (HERMES_EXEC_BUNDLE=0): median ${fmt(m.execModules, 1)} ms vs the bundle ${fmt(m.exec, 1)} ms ` +
      `(${fmt(m.execModules / m.exec)}x); minimum ${fmt(least.execModules, 1)} vs ${fmt(least.exec, 1)} ms`,
  );
  console.log(
    `hermes exec --help: median ${fmt(m.execHelp, 1)} ms vs hermes --help ${fmt(m.help, 1)} ms ` +
      `(${m.execHelp >= m.help ? '+' : ''}${fmt(m.execHelp - m.help, 1)} ms)`,
  );
}
