import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findExecutable } from '../../src/environments/index.js';
import { runCli } from '../environments/cli-harness.js';
import { startFakeOpenAI } from '../fakes/openai-server.js';

function home(): string {
  return mkdtempSync(join(tmpdir(), 'hermes-setup-cli-'));
}

function writePlugin(root: string, name: string, body: string) {
  const dir = join(root, 'plugins', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), `name: ${name}\nversion: 0.0.1\ndescription: ${name}\nkind: backend\n`);
  writeFileSync(join(dir, 'index.mjs'), body);
}

/** A plugin backend whose availability, checks and post-setup are scripted. */
const scripted = (name: string, options: { available?: boolean; checkOk?: boolean; postSetupThrows?: boolean } = {}) => `
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
export function register(ctx) {
  ctx.registerTerminalEnvironmentProvider({
    name: '${name}',
    displayName: 'Scripted ${name}',
    description: 'a scripted backend',
    isAvailable: () => ${options.available ?? true},
    probe: () => ({ ok: ${options.available ?? true}, detail: 'scripted probe says hello' }),
    doctorChecks: () => [{ name: 'thing', ok: ${options.checkOk ?? true}, detail: 'scripted detail', fix: 'install the thing' }],
    setupInstructions: () => 'Scripted instructions for ${name}.',
    postSetup() {
      ${options.postSetupThrows ? "throw new Error('login failed');" : "writeFileSync(join(process.env.SETUP_MARK_DIR ?? '/nonexistent', 'post-setup-ran'), 'yes');"}
    },
    createEnvironment: (o) => new ctx.LocalEnvironment({ cwd: o.cwd, timeout: o.timeout, childEnv: () => ({}) }),
  });
}
`;

describe('hermes setup', () => {
  it('--backend writes terminal.backend after printing the instructions and running postSetup', async () => {
    const root = home();
    writePlugin(root, 'scripted', scripted('scripted_box'));
    writeFileSync(join(root, 'config.yaml'), '# keep me\nplugins:\n  enabled: [scripted]\n');
    process.env.SETUP_MARK_DIR = root;
    try {
      const run = await runCli(root, 'setup', '--backend', 'scripted_box');
      expect(run.error).toBeUndefined();
      expect(run.stdout).toContain('Scripted scripted_box [scripted_box]');
      expect(run.stdout).toContain('Scripted instructions for scripted_box.');
      expect(run.stdout).toContain(`terminal.backend = scripted_box (${join(root, 'config.yaml')})`);
      expect(readFileSync(join(root, 'post-setup-ran'), 'utf8')).toBe('yes');
      const text = readFileSync(join(root, 'config.yaml'), 'utf8');
      expect(text).toContain('# keep me');
      expect(text).toMatch(/terminal:\n {2}backend: scripted_box/);
    } finally {
      delete process.env.SETUP_MARK_DIR;
    }
  });

  it('refuses an unknown backend and does not write when postSetup fails', async () => {
    const root = home();
    writePlugin(root, 'broken', scripted('broken_box', { postSetupThrows: true }));
    writeFileSync(join(root, 'config.yaml'), 'plugins:\n  enabled: [broken]\n');
    expect((await runCli(root, 'setup', '--backend', 'nope')).error).toMatch(/unknown backend "nope"; known backends: local, sandbox, ssh, docker, broken_box/);
    const run = await runCli(root, 'setup', '--backend', 'broken_box');
    expect(run.error).toMatch(/broken_box: post-setup step failed: login failed; terminal.backend was not changed/);
    expect(readFileSync(join(root, 'config.yaml'), 'utf8')).not.toContain('broken_box');
  });

  it('without flags and without a terminal, says to pass --non-interactive and the flags', async () => {
    const root = home();
    const run = await runCli(root, 'setup');
    // vitest's stdin is not a TTY.
    expect(run.error).toMatch(/setup: no terminal to ask on; pass --non-interactive with the flags of the steps to do \(hermes setup --help\), such as --backend NAME \(known: local, sandbox, ssh, docker\)/);
  });
});

describe('hermes setup --non-interactive', () => {
  it('with no step\'s flags writes nothing and says which flags do the steps', async () => {
    const root = home();
    const run = await runCli(root, 'setup', '--non-interactive');
    expect(run.error).toBeUndefined();
    expect(run.stdout).toContain('setup: nothing to do: --non-interactive does the steps whose flags are given');
    expect(() => readFileSync(join(root, 'config.yaml'), 'utf8')).toThrow(/ENOENT/);
  });
});

describe('hermes status', () => {
  it('shows the active backend, every probe, the model and the platforms', async () => {
    const root = home();
    writePlugin(root, 'scripted', scripted('scripted_box'));
    writeFileSync(join(root, 'config.yaml'), 'plugins:\n  enabled: [scripted]\nterminal:\n  backend: scripted_box\nmodel:\n  name: test-model\n  api_key_env: STATUS_TEST_KEY\nplatforms:\n  discord:\n    enabled: false\n');
    const run = await runCli(root, 'status');
    expect(run.error).toBeUndefined();
    expect(run.stdout).toContain('terminal backend: Scripted scripted_box [scripted_box]');
    expect(run.stdout).toMatch(/^ {2}\* scripted_box +ok {3}scripted probe says hello \(plugin scripted\)$/m);
    expect(run.stdout).toMatch(/^ {4}local +ok/m);
    expect(run.stdout).toMatch(/^ {4}sandbox +(ok|--)/m);
    // A backend nobody chose is not reported as a failure (ssh has no host here).
    expect(run.stdout).toMatch(/^ {4}ssh +-- +not chosen, not set up here \(/m);
    expect(run.stdout).not.toMatch(/^ {4}ssh +FAIL/m);
    expect(run.stdout).toContain('model: test-model at https://api.openai.com/v1; STATUS_TEST_KEY is not set');
    expect(run.stdout).toMatch(/discord +disabled/);
    expect(run.stdout).toMatch(/web +ready/);
  });
});

describe('hermes status, a chosen backend', () => {
  it('reports FAIL for the backend terminal.backend chose when it cannot run here', async () => {
    const root = home();
    writeFileSync(join(root, 'config.yaml'), 'terminal:\n  backend: ssh\n');
    const run = await runCli(root, 'status');
    expect(run.stdout).toMatch(/^ {2}\* ssh +FAIL /m);
  });
});

describe('hermes doctor', () => {
  const hasPython = findExecutable('python3') !== undefined;

  it.runIf(hasPython || process.env.CI === 'true')('passes with exit code 0 when everything required is fine', async () => {
    const root = home();
    const model = await startFakeOpenAI({ fallback: { toolCalls: [{ name: 'hermes_check', arguments: { word: 'ready' } }] } });
    writeFileSync(join(root, 'config.yaml'), `model:\n  base_url: ${model.url}\n  name: fake-model\n  api_key_env: DOCTOR_PASS_TEST_KEY\n`);
    const run = await runCli(root, 'doctor').finally(() => model.close());
    expect(run.stdout).toMatch(/^\[ ok \] model: fake-model at .* answered and called a tool$/m);
    expect(run.stdout).toMatch(/^\[ ok \] config: .*config\.yaml is valid$/m);
    expect(run.stdout).toMatch(/^\[ ok \] python for execute_code: python3 3\.\d+/m);
    expect(run.stdout).toMatch(/^\[ ok \] terminal backend: Local \[local\] is available$/m);
    expect(run.stdout).toMatch(/^\[info\] platform telegram: not started: needs TELEGRAM_BOT_TOKEN/m);
    expect(run.stdout).toContain('all required checks passed');
    expect(run.exitCode).toBe(0);
  });

  it('fails with exit code 1 and says what to do when the active backend\'s check fails', async () => {
    const root = home();
    writePlugin(root, 'scripted', scripted('scripted_box', { checkOk: false }));
    writeFileSync(join(root, 'config.yaml'), 'plugins:\n  enabled: [scripted]\nterminal:\n  backend: scripted_box\n');
    const run = await runCli(root, 'doctor');
    expect(run.stdout).toMatch(/^\[FAIL\] scripted_box: thing: scripted detail\n {7}→ install the thing$/m);
    expect(run.exitCode).toBe(1);
  });

  it('fails on an invalid config, a missing python and an unknown backend', async () => {
    const root = home();
    writeFileSync(join(root, 'config.yaml'), 'terminal:\n  timeout: -5\n');
    let run = await runCli(root, 'doctor');
    expect(run.stdout).toMatch(/^\[FAIL\] config: .*terminal\.timeout/m);
    expect(run.exitCode).toBe(1);
    writeFileSync(join(root, 'config.yaml'), 'code_execution:\n  python: /nonexistent/python9\nterminal:\n  backend: ghost_box\n');
    run = await runCli(root, 'doctor');
    expect(run.stdout).toMatch(/^\[FAIL\] python for execute_code: \/nonexistent\/python9 did not run\n {7}→ install Python 3\.8/m);
    expect(run.stdout).toMatch(/^\[FAIL\] terminal backend: terminal\.backend is "ghost_box"/m);
    expect(run.exitCode).toBe(1);
  });

  it('reports the sandbox\'s bubblewrap check, as info while another backend is active', async () => {
    const root = home();
    const run = await runCli(root, 'doctor');
    const hasBwrap = findExecutable('bwrap') !== undefined;
    expect(run.stdout).toMatch(hasBwrap ? /^\[ ok \] sandbox: bubblewrap: \/.*bwrap$/m : /^\[info\] sandbox: bubblewrap: bwrap not found on PATH\n {7}→ install bubblewrap/m);
  });
});

describe('hermes setup: the interactive picker', () => {
  it('lists every backend with its description and takes a number or a name, asking again on a wrong answer', async () => {
    const { PassThrough } = await import('node:stream');
    const { pickBackend } = await import('../../src/cli/commands/setup.js');
    const { ProviderRegistry, LocalProvider } = await import('../../src/environments/index.js');
    const { configSchema } = await import('../../src/config/index.js');
    const registry = new ProviderRegistry();
    registry.register(new LocalProvider({ config: configSchema.parse({}) }));
    registry.register({ name: 'acmebox', displayName: 'AcmeBox', description: 'cloud sandbox', isAvailable: () => false, createEnvironment: () => { throw new Error('unused'); } }, 'acme');
    const pick = async (answers: string) => {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = '';
      output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
      const chosen = pickBackend(registry.list(), 'local', { input, output });
      for (const line of answers.split('\n')) {
        await new Promise((resolve) => setImmediate(resolve));
        input.write(`${line}\n`);
      }
      return { chosen: await chosen, shown };
    };
    const byNumber = await pick('7\n2');
    expect(byNumber.chosen).toBe('acmebox');
    expect(byNumber.shown).toContain('1. Local [local] (current)');
    expect(byNumber.shown).toContain('2. AcmeBox [acmebox] — not available here');
    expect(byNumber.shown).toContain('     cloud sandbox');
    expect(byNumber.shown).toContain('"7" is not one of them');
    expect((await pick('ACMEBOX')).chosen).toBe('acmebox');
    expect((await pick('')).chosen).toBe('local');
  });
});
