import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { createEnvironmentManager } from '../../src/environments/index.js';
import { terminalTool } from '../../src/tools/builtin/index.js';
import { createCodeExecutor } from '../../src/execute-code/index.js';
import { findExecutable } from '../../src/environments/index.js';
import { silentLogger } from '../../src/shared/index.js';
import type { ToolContext } from '../../src/tools/index.js';
import { runCli } from '../environments/cli-harness.js';

const example = join(import.meta.dirname, '../../examples/plugins/folderbox');
const hasPython = findExecutable('python3') !== undefined;

function home(): string {
  return mkdtempSync(join(tmpdir(), 'hermes-plugins-cli-'));
}

/** Writes a plugin folder with the given index.mjs body. */
function writePlugin(root: string, name: string, body: string, manifest = `name: ${name}\nversion: 1.2.3\ndescription: test plugin ${name}\nkind: backend\n`) {
  const dir = join(root, 'plugins', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'plugin.yaml'), manifest);
  writeFileSync(join(dir, 'index.mjs'), body);
}

const goodBackend = (name: string) => `export function register(ctx) {
  ctx.registerTerminalEnvironmentProvider({ name: '${name}', createEnvironment: (o) => new ctx.LocalEnvironment({ cwd: o.cwd, timeout: o.timeout, childEnv: () => ({}) }) });
}
`;

describe('hermes plugins', () => {
  it('lists plugins with version and state, and enables and disables them keeping config comments', async () => {
    const root = home();
    writeFileSync(join(root, 'config.yaml'), '# my settings\nterminal:\n  timeout: 99  # slow machine\nplugins:\n  enabled: []\n');
    writePlugin(root, 'alpha', goodBackend('alpha_box'));
    let run = await runCli(root, 'plugins', 'list');
    expect(run.stdout).toMatch(/^alpha {2}1\.2\.3 {2}available {2}— test plugin alpha$/m);

    run = await runCli(root, 'plugins', 'enable', 'alpha');
    expect(run.error).toBeUndefined();
    expect(run.stdout).toContain('plugins.enabled: added alpha → [alpha]');
    const text = readFileSync(join(root, 'config.yaml'), 'utf8');
    expect(text).toContain('# my settings');
    expect(text).toContain('timeout: 99 # slow machine');
    run = await runCli(root, 'plugins', 'list');
    expect(run.stdout).toContain('alpha  1.2.3  enabled  backends: alpha_box');
    expect((await runCli(root, 'plugins', 'enable', 'alpha')).stdout).toContain('already enabled; nothing changed');

    run = await runCli(root, 'plugins', 'disable', 'alpha');
    expect(run.stdout).toContain('plugins.enabled: removed alpha → []');
    expect(run.stdout).toContain('plugins.disabled: added alpha → [alpha]');
    expect((await runCli(root, 'plugins', 'list')).stdout).toContain('alpha  1.2.3  disabled');
    // Enabling again takes it out of disabled too (disabled would win).
    run = await runCli(root, 'plugins', 'enable', 'alpha');
    expect(run.stdout).toContain('plugins.disabled: removed alpha → []');
    expect((await runCli(root, 'plugins', 'enable', 'nope')).error).toMatch(/no plugin "nope" in .*plugins; found: alpha/);
  });

  it('skips a plugin whose register throws or is missing, records why, and keeps the others', async () => {
    const root = home();
    writePlugin(root, 'thrower', 'export function register() { throw new Error("kaboom"); }\n');
    writePlugin(root, 'noregister', 'export const nothing = 1;\n');
    writePlugin(root, 'greedy', `export function register(ctx) {
  ctx.registerTerminalEnvironmentProvider({ name: 'docker', createEnvironment() { throw new Error('no'); } });
  ctx.registerTerminalEnvironmentProvider({ name: 'greedy_box', createEnvironment() { throw new Error('no'); } });
}
`);
    writePlugin(root, 'good', goodBackend('good_box'));
    writeFileSync(join(root, 'config.yaml'), 'plugins:\n  enabled: [thrower, noregister, greedy, good]\n');
    const run = await runCli(root, 'plugins', 'list');
    expect(run.stdout).toContain('thrower  1.2.3  enabled, failed');
    expect(run.stdout).toContain('error: register(ctx) threw: kaboom');
    expect(run.stdout).toMatch(/^noregister {2}1\.2\.3 {2}enabled, failed.*\n {4}error: .*exports no register\(ctx\) function$/m);
    expect(run.stdout).toContain('greedy  1.2.3  enabled, failed  backends: greedy_box');
    expect(run.stdout).toContain('error: plugin "greedy": cannot register backend "docker": the name is reserved');
    expect(run.stdout).toContain('good  1.2.3  enabled  backends: good_box');
    // The gateway still starts: the registry loads with the good backends.
    const loaded = loadConfig({ home: root, loadEnv: false });
    const { registry, plugins } = await createEnvironmentManager({ ...loaded });
    expect(registry.names()).toEqual(['local', 'sandbox', 'ssh', 'docker', 'good_box', 'greedy_box']);
    expect(plugins.find((p) => p.name === 'thrower')?.loaded).toBe(false);
  });

  it('config set terminal.backend refuses an unknown name, listing the known ones', async () => {
    const root = home();
    writePlugin(root, 'alpha', goodBackend('alpha_box'));
    let run = await runCli(root, 'config', 'set', 'terminal.backend', 'alpha_box');
    expect(run.error).toMatch(/unknown backend "alpha_box"; known backends: local, sandbox, ssh, docker/);
    await runCli(root, 'plugins', 'enable', 'alpha');
    run = await runCli(root, 'config', 'set', 'terminal.backend', 'ALPHA_BOX');
    expect(run.error).toBeUndefined();
    expect(loadConfig({ home: root, loadEnv: false }).config.terminal.backend).toBe('ALPHA_BOX');
    run = await runCli(root, 'config', 'set', 'terminal.backend', 'ghost');
    expect(run.error).toMatch(/unknown backend "ghost"; known backends: local, sandbox, ssh, docker, alpha_box/);
  });

  it('runs the example plugin end to end: copied, enabled and selected with the CLI, used through terminal and execute_code', async () => {
    const root = home();
    cpSync(example, join(root, 'plugins', 'folderbox'), { recursive: true });
    expect((await runCli(root, 'plugins', 'enable', 'folderbox')).error).toBeUndefined();
    expect((await runCli(root, 'config', 'set', 'terminal.backend', 'folderbox')).error).toBeUndefined();
    // The provider's secret must reach no child, even when listed for passthrough.
    expect((await runCli(root, 'config', 'set', 'terminal.env_passthrough', '[FOLDERBOX_TOKEN]')).error).toBeUndefined();
    process.env.FOLDERBOX_TOKEN = 'folderbox-secret-123';
    try {
      const loaded = loadConfig({ home: root, loadEnv: false });
      const { manager } = await createEnvironmentManager({ ...loaded });
      expect(manager.provider.name).toBe('folderbox');
      const environment = await manager.environmentFor('web:1');
      const folder = join(root, 'folderbox');
      const ctx: ToolContext = {
        sessionId: 'web:1', signal: new AbortController().signal, environment, logger: silentLogger(),
        config: loaded.config, paths: loaded.paths,
      };
      const result = (await terminalTool().handler({ command: 'pwd; echo "token=${FOLDERBOX_TOKEN:-none}"' }, ctx)) as { output: string; exit_code: number };
      expect(result).toEqual({ output: `[folderbox] ${folder}\ntoken=none\n`, exit_code: 0 });

      if (hasPython || process.env.CI === 'true') {
        const executor = createCodeExecutor({ loaded });
        try {
          const code = [
            'import os',
            'from hermes_tools import terminal',
            'print(os.getcwd())',
            'print(os.environ.get("FOLDERBOX_TOKEN", "none"))',
            'print(terminal("echo from-script")["output"].strip())',
          ].join('\n');
          const run = await executor.execute({ code, sessionId: 'web:1', context: ctx });
          expect(run.status).toBe('success');
          expect(run.output).toBe(`${folder}\nnone\n[folderbox] from-script\n`);
          expect(run.tool_calls_made).toBe(1);
        } finally {
          await executor.close();
        }
      }
      await manager.closeAll();
    } finally {
      delete process.env.FOLDERBOX_TOKEN;
    }
  });
});
