import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { assessCommand, assessScript, pathContext } from '../../src/approvals/index.js';
import { findExecutable } from '../../src/environments/index.js';
import type { ConfigOverrides } from '../../src/config/index.js';
import type { ToolContext } from '../../src/tools/index.js';
import { makeToolContext, tempDir } from '../helpers/tool-context.js';

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

let realHome: string | undefined;
let home: string;
let witness: string;
let tarball: string;

beforeEach(() => {
  realHome = process.env.HOME;
  home = tempDir('hermes-floor-scripts-home-');
  process.env.HOME = home;
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA canary\n');
  writeFileSync(join(home, 'marker.txt'), 'still here\n');
  mkdirSync(join(home, 'projects', 'keep'), { recursive: true });
  writeFileSync(join(home, 'projects', 'keep', 'file.txt'), 'keep me\n');
  const outside = tempDir('hermes-floor-scripts-witness-');
  witness = join(outside, 'started.txt');
  // An archive that would overwrite the canary if it were unpacked into the home.
  const payload = join(outside, 'payload');
  mkdirSync(payload);
  writeFileSync(join(payload, 'marker.txt'), 'overwritten\n');
  tarball = join(outside, 'payload.tar');
  execFileSync('tar', ['-C', payload, '-cf', tarball, 'marker.txt']);
});

afterEach(() => {
  if (realHome === undefined) delete process.env.HOME;
  else process.env.HOME = realHome;
});

function expectHomeIntact(): void {
  expect(readFileSync(join(home, 'marker.txt'), 'utf8')).toBe('still here\n');
  expect(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8')).toBe('ssh-ed25519 AAAA canary\n');
  expect(readFileSync(join(home, 'projects', 'keep', 'file.txt'), 'utf8')).toBe('keep me\n');
}

async function runScript(code: string, ctx: ToolContext): Promise<{ output?: string; error?: string }> {
  const { createCodeExecutor, executeCodeTool } = await import('../../src/execute-code/index.js');
  const executor = createCodeExecutor({ loaded: { config: ctx.config, paths: ctx.paths, warnings: [] } });
  try {
    return (await executeCodeTool(executor, ctx.config).handler({ code }, ctx)) as { output?: string; error?: string };
  } finally {
    await executor.close();
  }
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

const terminalScript = (commands: string[]) =>
  [
    'import base64, json',
    'from hermes_tools import terminal',
    `commands = json.loads(base64.b64decode("${Buffer.from(JSON.stringify(commands)).toString('base64')}").decode())`,
    'print(json.dumps([terminal(c) for c in commands]))',
  ].join('\n');

function context(approvals?: ConfigOverrides['approvals'], requestApproval?: ToolContext['requestApproval']): ToolContext {
  return makeToolContext({ ...(approvals ? { config: { approvals } } : {}), ...(requestApproval ? { requestApproval } : {}) });
}

describe.runIf(hasPython || process.env.CI === 'true')("issue 22's script paths end to end: execute_code with a throwaway HOME", () => {
  it('refuses each script before it starts (floor: blocked, naming the line; risky: nobody to ask), and the home keeps every canary', async () => {
    expect(home.startsWith(tmpdir()) && /^[\w/.-]+$/.test(home)).toBe(true);
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
    const result = await runScript(terminalScript(commands), ctx);
    const answers = JSON.parse(result.output ?? 'null') as Array<{ output?: string; error?: string }>;
    expect(answers).toHaveLength(commands.length);
    answers.forEach((answer, i) => {
      const expected = verdicts[i] === 'blocked' ? /^terminal: blocked: .+never run here/ : /^terminal: not run: .+there is no one to ask here/;
      expect({ command: commands[i], error: answer.error, output: answer.output }).toEqual({ command: commands[i], error: expect.stringMatching(expected), output: undefined });
    });
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
