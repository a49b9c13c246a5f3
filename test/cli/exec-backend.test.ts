import { describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hermes } from '../helpers/hermes-process.js';

const fixture = join(import.meta.dirname, '../fixtures/plugins/readme-box');

function home(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-exec-backend-'));
  writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

/** What the script sees of its process: hostname, its pid, and what /proc/1 runs. */
const WHERE = [
  'import os, socket',
  'from hermes_tools import terminal',
  'init = os.path.basename(open("/proc/1/cmdline", "rb").read().split(b"\\0")[0].decode())',
  'print(socket.gethostname(), os.getpid(), init)',
  'print(terminal("hostname")["output"].strip())',
].join('\n');

function where(stdout: string): { hostname: string; pid: number; init: string; terminalHost: string } {
  const [first = '', second = ''] = stdout.trim().split('\n');
  const [hostname, pid, init] = first.split(' ');
  return { hostname, pid: Number(pid), init, terminalHost: second };
}

describe('hermes exec on the configured backend', () => {
  it('runs the script inside the sandbox when terminal.backend is sandbox (its hostname, PID namespace, bwrap as /proc/1)', async () => {
    const run = await hermes(home('terminal:\n  backend: sandbox\n'), ['exec', '-'], { stdin: WHERE });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const seen = where(run.stdout);
    expect(seen.hostname).toBe('hermes-sandbox');
    expect(seen.pid).toBeGreaterThan(0);
    expect(seen.pid).toBeLessThanOrEqual(10);
    expect(seen.init).toBe('bwrap');
    // The script's tool calls run there too.
    expect(seen.terminalHost).toBe('hermes-sandbox');
  }, 60_000);

  it('--backend sandbox runs one script in the sandbox although terminal.backend is local', async () => {
    const dir = home('terminal:\n  backend: local\n');
    const local = where((await hermes(dir, ['exec', '-'], { stdin: WHERE })).stdout);
    expect(local.hostname).not.toBe('hermes-sandbox');
    expect(local.init).not.toBe('bwrap');
    const run = await hermes(dir, ['exec', '-', '--backend', 'sandbox'], { stdin: WHERE });
    expect(run.code).toBe(0);
    expect(where(run.stdout)).toMatchObject({ hostname: 'hermes-sandbox', init: 'bwrap', terminalHost: 'hermes-sandbox' });
  }, 60_000);

  it('refuses an unknown --backend with the known backends and runs nothing', async () => {
    const dir = home('terminal:\n  backend: local\n');
    const marker = join(dir, 'ran');
    const run = await hermes(dir, ['exec', '-', '--backend', 'nowhere'], { stdin: `open(${JSON.stringify(marker)}, "w").write("x")\n` });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--backend: unknown backend "nowhere"; known backends: local, sandbox, ssh, docker');
    expect(run.stdout).toBe('');
    expect(existsSync(marker)).toBe(false);
  });

  it('loads the enabled plugins: their stripEnvKeys leave the script and its commands even on local and when passed through', async () => {
    const dir = home('terminal:\n  backend: local\n  env_passthrough: [README_BOX_LOGIN, README_BOX_COLOUR]\nplugins:\n  enabled: [readme-box]\n');
    cpSync(fixture, join(dir, 'plugins', 'readme-box'), { recursive: true });
    const script = [
      'import os',
      'from hermes_tools import terminal',
      'print(os.environ.get("README_BOX_LOGIN"), os.environ.get("README_BOX_COLOUR"))',
      'print(terminal("echo \\"[$README_BOX_LOGIN] [$README_BOX_COLOUR]\\"")["output"].strip())',
    ].join('\n');
    const env = { README_BOX_LOGIN: 'hunter2', README_BOX_COLOUR: 'teal' };
    const run = await hermes(dir, ['exec', '-'], { stdin: script, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('None teal\n[] [teal]\n');
  });

  it('documents --backend in hermes exec --help', async () => {
    const run = await hermes(home(''), ['exec', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--backend <name>\s+run on this terminal backend instead of terminal\.backend/);
    expect(run.stdout).toContain('on the configured terminal backend');
  });
});
