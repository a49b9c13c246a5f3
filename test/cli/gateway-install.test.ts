import { describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { builtCli } from '../helpers/hermes-process.js';
import { unitWord } from '../../src/cli/systemd-unit.js';
import { runHermes } from './cli-process.js';

/** A throwaway HOME and XDG_CONFIG_HOME: the real ~/.config is never touched. */
function place() {
  const root = mkdtempSync(join(tmpdir(), 'hermes-install-'));
  const home = join(root, 'home');
  const xdg = join(root, 'xdg config');
  const hermesHome = join(root, 'hermes home');
  const bin = join(root, 'bin');
  for (const dir of [home, hermesHome, bin]) mkdirSync(dir, { recursive: true });
  return { root, home, xdg, hermesHome, bin, unit: join(xdg, 'systemd', 'user', 'hermes-gateway.service') };
}

describe('hermes gateway install', () => {
  it('writes the user unit under XDG_CONFIG_HOME, prints it, and runs daemon-reload, enable and restart through systemctl --user', async () => {
    const at = place();
    const log = join(at.root, 'systemctl.log');
    // A stand-in systemctl that records what it was asked.
    writeFileSync(join(at.bin, 'systemctl'), `#!/bin/sh\necho "$@" >> ${unitWord(log)}\n`);
    chmodSync(join(at.bin, 'systemctl'), 0o755);
    const run = await runHermes(at.hermesHome, ['gateway', 'install'], { HOME: at.home, XDG_CONFIG_HOME: at.xdg, PATH: `${at.bin}:${process.env.PATH}` });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const unit = readFileSync(at.unit, 'utf8');
    expect(run.stdout).toContain(`wrote ${at.unit}:`);
    expect(run.stdout).toContain(unit);
    expect(unit).toContain(`ExecStart=${process.execPath} ${builtCli} --home "${at.hermesHome}" gateway\n`);
    expect(unit).toContain(`WorkingDirectory="${at.hermesHome}"\n`);
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(/^WantedBy=default\.target$/m);
    expect(readFileSync(log, 'utf8')).toBe('--user daemon-reload\n--user enable hermes-gateway.service\n--user restart hermes-gateway.service\n');
    expect(existsSync(join(at.home, '.config'))).toBe(false);
  });

  it('prints the systemctl commands instead of running them where there is no systemctl', async () => {
    const at = place();
    const run = await runHermes(at.hermesHome, ['gateway', 'install'], { HOME: at.home, XDG_CONFIG_HOME: at.xdg, PATH: at.bin });
    expect(run.code).toBe(0);
    expect(existsSync(at.unit)).toBe(true);
    expect(run.stdout).toContain('systemctl is not on PATH; to enable and start it:\n  systemctl --user daemon-reload\n  systemctl --user enable hermes-gateway.service\n  systemctl --user restart hermes-gateway.service');
  });

  it('fails and says what is left when systemctl refuses (no user session bus)', async () => {
    const at = place();
    writeFileSync(join(at.bin, 'systemctl'), '#!/bin/sh\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n');
    chmodSync(join(at.bin, 'systemctl'), 0o755);
    const run = await runHermes(at.hermesHome, ['gateway', 'install'], { HOME: at.home, XDG_CONFIG_HOME: at.xdg, PATH: `${at.bin}:${process.env.PATH}` });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Failed to connect to bus: No medium found');
    expect(run.stderr).toContain(`hermes: gateway install: systemctl --user daemon-reload failed (exit 1); the unit is written at ${at.unit}`);
    // What is left, exactly, to copy.
    expect(run.stdout).toContain('loginctl enable-linger');
    expect(run.stdout).toContain('then run:\n  systemctl --user daemon-reload\n  systemctl --user enable hermes-gateway.service\n  systemctl --user restart hermes-gateway.service');
  });

  it('writes a PATH without npx\'s temporary folders, npm\'s script helpers or temp folders (as run through npx)', async () => {
    const at = place();
    const npx = '/root/.npm/_npx/1a2b3c/node_modules/.bin';
    const path = [npx, '/work/clone/node_modules/.bin', '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin', '/tmp/xfs-123/bin', 'relative/bin', '/opt/tools/bin', '/usr/bin', '/usr/bin/', '/bin'].join(':');
    const run = await runHermes(at.hermesHome, ['gateway', 'install', '--no-enable'], { HOME: at.home, XDG_CONFIG_HOME: at.xdg, PATH: path });
    expect(run.code).toBe(0);
    const line = /^Environment=PATH=(.*)$/m.exec(readFileSync(at.unit, 'utf8'))![1];
    const entries = line.split(':');
    expect(entries.slice(0, 3)).toEqual(['/opt/tools/bin', '/usr/bin', '/bin']);
    expect(line).not.toMatch(/_npx|node_modules|node-gyp-bin|\/tmp\/|relative/);
    expect(entries).toContain(dirname(process.execPath));
    expect(new Set(entries).size).toBe(entries.length);
  });

  it('quotes unit words that hold blanks, quotes or %', () => {
    expect(unitWord('/usr/bin/node')).toBe('/usr/bin/node');
    expect(unitWord('/tmp/a b')).toBe('"/tmp/a b"');
    expect(unitWord('100%')).toBe('100%%');
    expect(unitWord('say "hi"')).toBe('"say \\"hi\\""');
  });
});
