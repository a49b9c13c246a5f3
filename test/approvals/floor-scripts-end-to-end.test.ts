import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assessCommand, assessScript, pathContext } from '../../src/approvals/index.js';
import { findExecutable } from '../../src/environments/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import type { ToolContext } from '../../src/tools/index.js';
import { makeToolContext } from '../helpers/tool-context.js';
import { expectTerminalRefusesEach, runScript, throwawayHomeEachTest, writeCanaries } from './throwaway-home.js';

/*
 * Issue 22's script paths end to end: real execute_code scripts (a real Python kernel) with a
 * throwaway HOME holding canary files, and the interpreter one-liners sent through
 * hermes_tools.terminal from a script. Each must be refused before anything runs: the script's
 * first statement writes a witness file outside the home, so a script that started at all is
 * seen, and the canaries show that nothing in the home was deleted, moved or overwritten.
 *
 * Safety (a refused command must never run): what aims at a home aims at the throwaway one,
 * and what would change this machine (core_pattern, kill of pid 1, systemctl, iptables) sits
 * behind a tripwire that stops the script (`raise SystemExit`) or the shell (`false &&`) before
 * it, so even a broken guard could not run it; the assessment reads past the tripwire, and the
 * test proves with the guard's own context that each is refused before sending anything.
 */
const hasPython = findExecutable('python3') !== undefined;

let base: string;
let home: string;
let witness: string;
let tarball: string;

/** As root, the folders sit where the plain user's leg can reach them too (the run's own temp folder is root's). */
const asRoot = process.getuid?.() === 0;

throwawayHomeEachTest(() => {
  base = mkdtempSync(join(asRoot ? dirname(tmpdir()) : tmpdir(), 'hermes-floor-scripts-'));
  chmodSync(base, 0o755);
  home = join(base, 'home');
  mkdirSync(home);
  writeCanaries(home, 'canary');
  const outside = join(base, 'outside');
  mkdirSync(outside);
  witness = join(outside, 'started.txt');
  // An archive that would overwrite the canary if it were unpacked into the home.
  const payload = join(outside, 'payload');
  mkdirSync(payload);
  writeFileSync(join(payload, 'marker.txt'), 'overwritten\n');
  tarball = join(outside, 'payload.tar');
  execFileSync('tar', ['-C', payload, '-cf', tarball, 'marker.txt']);
  return home;
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

function expectHomeIntact(): void {
  expect(readFileSync(join(home, 'marker.txt'), 'utf8')).toBe('still here\n');
  expect(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8')).toBe('ssh-ed25519 AAAA canary\n');
  expect(readFileSync(join(home, 'projects', 'keep', 'file.txt'), 'utf8')).toBe('keep me\n');
}

interface ScriptPath {
  name: string;
  verdict: 'blocked' | 'risky';
  /** The script's lines after the imports and the witness; `at` is the offending one (0-based within them). */
  body: string[];
  at: number;
}

const TRIPWIRE = 'raise SystemExit("tripwire: the guard let this script start")';

/** Issue 22's script paths, aimed at the throwaway home `h` (the archive at `tar`). */
function scriptPaths(h: string, tar: string): ScriptPath[] {
  return [
    { name: 'os.system("rm -rf ~/*")', verdict: 'blocked', body: ['os.system("rm -rf ~/*")'], at: 0 },
    { name: 'shutil.rmtree(os.environ["HOME"])', verdict: 'blocked', body: ['shutil.rmtree(os.environ["HOME"])'], at: 0 },
    { name: 'getattr(__import__("shutil"), "rm"+"tree")', verdict: 'blocked', body: ['print("working")', 'getattr(__import__("shutil"), "rm" + "tree")(os.environ["HOME"])'], at: 1 },
    { name: 'chr() arithmetic', verdict: 'blocked', body: ['os.system(chr(114) + chr(109) + " -rf " + os.path.expanduser("~"))'], at: 0 },
    { name: 'node -e fs.rmSync(homedir, {recursive: true})', verdict: 'blocked', body: ['subprocess.run(["node", "-e", "const fs = require(\'fs\'); const homedir = require(\'os\').homedir(); fs.rmSync(homedir, {recursive: true})"])'], at: 0 },
    { name: 'python3 -c shutil.rmtree(os.environ["HOME"])', verdict: 'blocked', body: ['subprocess.run(["python3", "-c", "import os, shutil; shutil.rmtree(os.environ[\'HOME\'])"])'], at: 0 },
    { name: "perl -MFile::Path=rmtree -e 'rmtree($ENV{HOME})'", verdict: 'blocked', body: ['subprocess.run(["perl", "-MFile::Path=rmtree", "-e", "rmtree($ENV{HOME})"])'], at: 0 },
    { name: 'open("/proc/sys/kernel/core_pattern", "w")', verdict: 'blocked', body: [TRIPWIRE, 'open("/proc/sys/kernel/core_pattern", "w").write("|/bin/false")'], at: 1 },
    { name: 'echo … > /proc/sys/kernel/core_pattern', verdict: 'blocked', body: [TRIPWIRE, 'os.system("echo \'|/bin/false\' > /proc/sys/kernel/core_pattern")'], at: 1 },
    { name: 'sysctl -w kernel.core_pattern', verdict: 'blocked', body: [TRIPWIRE, 'subprocess.run(["sysctl", "-w", "kernel.core_pattern=|/bin/false"])'], at: 1 },
    { name: 'os.kill(1, SIGKILL)', verdict: 'blocked', body: [TRIPWIRE, 'os.kill(1, signal.SIGKILL)'], at: 1 },
    { name: 'tar -C ~ -xf', verdict: 'risky', body: [`subprocess.run(["tar", "-C", os.environ["HOME"], "-xf", ${JSON.stringify(tar)}])`], at: 0 },
    { name: 'os.rename of ~/.ssh', verdict: 'risky', body: [`os.rename(os.path.expanduser("~/.ssh"), ${JSON.stringify(`${h}-keys`)})`], at: 0 },
    { name: 'systemctl --user enable --now', verdict: 'risky', body: [TRIPWIRE, 'subprocess.run(["systemctl", "--user", "enable", "--now", "hermes-canary.service"])'], at: 1 },
    { name: 'iptables -F', verdict: 'risky', body: [TRIPWIRE, 'os.system("iptables -F")'], at: 1 },
  ];
}

const HEADER = 2;
const script = (path: ScriptPath, witnessFile: string) =>
  ['import os, shutil, signal, subprocess', `open(${JSON.stringify(witnessFile)}, "w").write("started")`, ...path.body].join('\n');

/** Issue 22's one-liners for terminal(); what would change this machine sits behind `false &&`. */
function oneLiners(h: string, tar: string): string[] {
  return [
    `node -e 'const fs = require("fs"); const homedir = require("os").homedir(); fs.rmSync(homedir, { recursive: true })'`,
    `python3 -c 'import os, shutil; shutil.rmtree(os.environ["HOME"])'`,
    `python3 -c 'import os; getattr(__import__("shutil"), "rm" + "tree")(os.environ["HOME"])'`,
    `perl -MFile::Path=rmtree -e 'rmtree($ENV{HOME})'`,
    `python3 - <<'PY'\nimport os, shutil\nshutil.rmtree(os.environ["HOME"])\nPY`,
    `python3 -c 'import os; os.system("rm -rf ~/*")'`,
    `tar -C ~ -xf ${tar}`,
    `python3 -c 'import os; os.rename(os.path.expanduser("~/.ssh"), "${h}-keys")'`,
    `false && echo '|/bin/false' > /proc/sys/kernel/core_pattern`,
    `false && sysctl -w kernel.core_pattern='|/bin/false'`,
    `false && python3 -c 'open("/proc/sys/kernel/core_pattern", "w").write("|/bin/false")'`,
    'false && kill -9 1',
    'false && systemctl --user enable --now hermes-canary.service',
    'false && iptables -F',
  ];
}

function context(approvals?: ConfigOverrides['approvals'], requestApproval?: ToolContext['requestApproval']): ToolContext {
  return makeToolContext({ ...(approvals ? { config: { approvals } } : {}), ...(requestApproval ? { requestApproval } : {}) });
}

describe.runIf(hasPython || process.env.CI === 'true')("issue 22's script paths end to end: execute_code with a throwaway HOME", () => {
  it('refuses each script before it starts (floor: blocked, naming the line; risky: nobody to ask), and the home keeps every canary', async () => {
    expect(home.startsWith(dirname(tmpdir())) && /^[\w/.-]+$/.test(home)).toBe(true);
    const ctx = context();
    expect(ctx.requestApproval).toBeUndefined();
    expect(homedir()).toBe(home);
    const guardContext = pathContext({ home: homedir(), hermesHome: ctx.paths.home });
    const paths = scriptPaths(home, tarball);
    // Before anything runs: the assessment the guard makes refuses each, at the offending line.
    for (const path of paths) {
      const assessment = assessScript(script(path, witness), guardContext);
      expect({ name: path.name, level: assessment.level }).toEqual({ name: path.name, level: path.verdict });
    }
    const probe = await runScript('import os\nprint(os.environ["HOME"])', ctx);
    expect(probe.output).toBe(`${home}\n`);

    for (const path of paths) {
      const result = await runScript(script(path, witness), ctx);
      const line = HEADER + path.at + 1;
      const expected = path.verdict === 'blocked' ? new RegExp(`^execute_code: blocked: line ${line} \\(.+\\): .+never run here`) : new RegExp(`^execute_code: not run: line ${line} \\(.+there is no one to ask here`);
      expect({ name: path.name, error: result.error, output: result.output }).toEqual({ name: path.name, error: expect.stringMatching(expected), output: undefined });
      expect({ name: path.name, started: existsSync(witness) }).toEqual({ name: path.name, started: false });
      expectHomeIntact();
    }
    expect(existsSync(`${home}-keys`)).toBe(false);
  });

  it("refuses each one-liner sent through hermes_tools.terminal, and the home keeps every canary", async () => {
    const ctx = context();
    const guardContext = pathContext({ home: homedir(), hermesHome: ctx.paths.home });
    const commands = oneLiners(home, tarball);
    const verdicts = commands.map((command) => assessCommand(command, guardContext).level);
    expect(commands.filter((_c, i) => verdicts[i] === 'safe')).toEqual([]);
    await expectTerminalRefusesEach(commands, verdicts, ctx);
    expectHomeIntact();
    expect(existsSync(`${home}-keys`)).toBe(false);
  });

  it('approvals.execute_code: ask with every answer yes: a floor script is refused without asking and never starts; a risky one is asked and runs', async () => {
    let asked = 0;
    const yes = async () => (asked++, true);
    const floor: ScriptPath = { name: "os.system('rm -rf ~')", verdict: 'blocked', body: ["os.system('rm -rf ~')"], at: 0 };
    for (const approvals of [{ execute_code: 'ask' as const }, { execute_code: 'ask' as const, mode: 'off' as const }]) {
      const result = await runScript(script(floor, witness), context(approvals, yes));
      expect(result.error).toMatch(/^execute_code: blocked: line 3 \(os\.system\('rm -rf ~'\)\): recursive delete of ~ .+whatever the approval settings/);
      expect(asked).toBe(0);
      expect(existsSync(witness)).toBe(false);
      expectHomeIntact();
    }
    // The same answers let a risky script run once asked: the refusal above is the floor, not a broken harness.
    const rename = scriptPaths(home, tarball).find((path) => path.name === 'os.rename of ~/.ssh');
    if (!rename) throw new Error('the rename path is missing');
    const result = await runScript(script(rename, witness), context({ execute_code: 'ask' }, yes));
    expect(result.error).toBeUndefined();
    expect(asked).toBe(1);
    expect(existsSync(witness)).toBe(true);
    expect(existsSync(join(`${home}-keys`, 'authorized_keys'))).toBe(true);
    expect(existsSync(join(home, '.ssh'))).toBe(false);
    expect(readFileSync(join(home, 'marker.txt'), 'utf8')).toBe('still here\n');
  });
});

/*
 * The same paths with the gateway as a plain user: a child node process (the built dist/, so
 * run `npm run build` first) under `setpriv` to nobody when this runs as root, else as the
 * current user, with its own throwaway HOME. It prints what execute_code answered.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NOBODY = 65534;

/** The child: builds a ToolContext as the tests' helper does, from dist/, and runs each script through execute_code. */
const RUNNER = `
import { deepMerge, hermesPaths, validateConfig } from ${JSON.stringify(join(ROOT, 'dist/src/config/index.js'))};
import { LocalEnvironment, buildChildEnv } from ${JSON.stringify(join(ROOT, 'dist/src/environments/index.js'))};
import { silentLogger } from ${JSON.stringify(join(ROOT, 'dist/src/shared/index.js'))};
import { createCodeExecutor, executeCodeTool } from ${JSON.stringify(join(ROOT, 'dist/src/execute-code/index.js'))};
const input = JSON.parse(Buffer.from(process.argv[2], 'base64').toString());
const { config } = validateConfig(deepMerge({}, { approvals: input.approvals }), 'plain-user leg');
const logger = silentLogger();
let asked = 0;
const environment = new LocalEnvironment({ cwd: input.cwd, timeout: config.terminal.timeout, maxOutputBytes: config.terminal.max_output_bytes,
  childEnv: () => buildChildEnv({ passthrough: config.terminal.env_passthrough, logger, label: 'terminal' }) });
const ctx = { sessionId: 'plain-user', signal: new AbortController().signal, environment, logger, config, paths: hermesPaths(input.hermesHome),
  ...(input.yes ? { requestApproval: async () => (asked++, true) } : {}) };
const results = [];
for (const code of input.scripts) {
  const executor = createCodeExecutor({ loaded: { config, paths: ctx.paths, warnings: [] } });
  try { results.push(await executeCodeTool(executor, config).handler({ code }, ctx)); } finally { await executor.close(); }
}
process.stdout.write(JSON.stringify({ uid: process.getuid(), home: process.env.HOME, asked, results }));
process.exit(0);
`;

/** A folder the child's user owns (chowned to nobody when root). */
function ownFolder(prefix: string): string {
  const dir = mkdtempSync(join(base, prefix));
  if (asRoot) chownSync(dir, NOBODY, NOBODY);
  return dir;
}

function chownTree(path: string): void {
  if (!asRoot) return;
  chownSync(path, NOBODY, NOBODY);
  if (statSync(path).isDirectory()) for (const name of readdirSync(path)) chownTree(join(path, name));
}

interface ChildAnswer {
  uid: number;
  home: string;
  asked: number;
  results: Array<{ output?: string; error?: string }>;
}

function runAsPlainUser(input: { home: string; scripts: string[]; approvals?: ConfigOverrides['approvals']; yes?: boolean }): ChildAnswer {
  const runnerDir = ownFolder('hermes-floor-runner-');
  const runner = join(runnerDir, 'runner.mjs');
  writeFileSync(runner, RUNNER);
  chmodSync(runner, 0o644);
  const payload = Buffer.from(JSON.stringify({ ...input, cwd: ownFolder('hermes-floor-cwd-'), hermesHome: ownFolder('hermes-floor-hermes-') })).toString('base64');
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: input.home, LANG: 'C.UTF-8' };
  const args = [runner, payload];
  const child = asRoot
    ? spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', process.execPath, ...args], { cwd: runnerDir, env, encoding: 'utf8', timeout: 120_000 })
    : spawnSync(process.execPath, args, { cwd: runnerDir, env, encoding: 'utf8', timeout: 120_000 });
  if (child.status !== 0) throw new Error(`the plain-user child failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout) as ChildAnswer;
}

const built = existsSync(join(ROOT, 'dist/src/execute-code/index.js'));

describe.runIf((hasPython && built) || process.env.CI === 'true')(`issue 22's script paths as a plain user (${asRoot ? 'nobody, from root' : 'the current user'})`, () => {
  it('refuses each script before it starts, and the plain user\'s home keeps every canary', () => {
    chownTree(home);
    chownTree(dirname(witness));
    const paths = scriptPaths(home, tarball);
    const answer = runAsPlainUser({ home, scripts: paths.map((path) => script(path, witness)) });
    expect(answer.uid).toBe(asRoot ? NOBODY : process.getuid?.());
    expect(answer.home).toBe(home);
    expect(answer.results).toHaveLength(paths.length);
    paths.forEach((path, i) => {
      const line = HEADER + path.at + 1;
      const expected = path.verdict === 'blocked' ? new RegExp(`^execute_code: blocked: line ${line} \\(.+never run here`) : new RegExp(`^execute_code: not run: line ${line} \\(.+there is no one to ask here`);
      expect({ name: path.name, error: answer.results[i].error, output: answer.results[i].output }).toEqual({ name: path.name, error: expect.stringMatching(expected), output: undefined });
    });
    expect(existsSync(witness)).toBe(false);
    expectHomeIntact();
    expect(existsSync(`${home}-keys`)).toBe(false);
  });

  it('approvals.execute_code: ask with every answer yes: the floor script is refused unasked; a harmless one is asked and runs', () => {
    chownTree(home);
    chownTree(dirname(witness));
    const floor = script({ name: 'floor', verdict: 'blocked', body: ["os.system('rm -rf ~')"], at: 0 }, witness);
    const answer = runAsPlainUser({ home, scripts: [floor, 'print("ran")'], approvals: { execute_code: 'ask' }, yes: true });
    expect(answer.results[0].error).toMatch(/^execute_code: blocked: line 3 \(os\.system\('rm -rf ~'\)\): recursive delete of ~/);
    expect(answer.results[1]).toMatchObject({ output: 'ran\n' });
    expect(answer.asked).toBe(1);
    expect(existsSync(witness)).toBe(false);
    expectHomeIntact();
  });
});
