import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { execa } from 'execa';
import { findExecutable } from '../../src/environments/index.js';
import { bwrapArgs, payloadPrefix, type SandboxLayout } from '../../src/environments/sandbox/bwrap-args.js';
import { systemView } from '../../src/environments/sandbox/system-view.js';

const tools = { setpriv: '/usr/bin/setpriv', prlimit: '/usr/bin/prlimit', unshare: '/usr/bin/unshare' };

function layout(dropTo?: { uid: number; gid: number }, real = false): SandboxLayout {
  const { system, masks } = systemView();
  const workspace = real ? mkdtempSync('/var/tmp/hermes-drop-') : '/var/tmp/hermes-drop-unit';
  const tmp = real ? mkdtempSync('/var/tmp/hermes-drop-tmp-') : '/var/tmp/hermes-drop-unit-tmp';
  return { workspace, tmp, network: false, system, masks, readOnly: [], hide: [], binds: [], chdir: '/', dropTo, disableUserns: true };
}

describe('how a sandboxed command starts', () => {
  it('as root: bwrap keeps only the capabilities to drop, and setpriv, unshare and prlimit run before the command, in that order', () => {
    const args = bwrapArgs(layout({ uid: 1900000001, gid: 1900000001 }));
    expect(args).not.toContain('--unshare-user');
    const kept = args.flatMap((arg, i) => (arg === '--cap-add' ? [args[i + 1]] : []));
    expect(kept.sort()).toEqual(['CAP_DAC_OVERRIDE', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_SETUID']);
    const prefix = payloadPrefix(tools, { uid: 1900000001, gid: 1900000001 }, ['--nproc=5:5']);
    expect(prefix.slice(0, 9)).toEqual([tools.setpriv, '--reuid=1900000001', '--regid=1900000001', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--', tools.unshare]);
    expect(prefix.slice(-3)).toEqual([tools.prlimit, '--nproc=5:5', '--']);
  });

  it('as a plain user: a user namespace of its own, with no further ones inside, and only prlimit before the command', () => {
    const args = bwrapArgs(layout());
    expect(args).toContain('--unshare-user');
    expect(args).toContain('--disable-userns');
    expect(args).not.toContain('--cap-add');
    // An older bwrap (before 0.8) does not know --disable-userns: it is left out there.
    expect(bwrapArgs({ ...layout(), disableUserns: false })).not.toContain('--disable-userns');
    expect(payloadPrefix(tools, undefined, [])).toEqual([tools.prlimit, '--']);
  });

  const asRoot = process.getuid?.() === 0 && findExecutable('bwrap') !== undefined;
  it.runIf(asRoot || process.env.CI === 'true')('as root where no user namespace may follow the drop: still no capability, no root uid, /proc/sys not writable', async () => {
    const sandbox = layout({ uid: 1900000002, gid: 1900000002 }, true);
    try {
      const argv = [...bwrapArgs(sandbox), ...payloadPrefix({ ...tools, unshare: undefined }, sandbox.dropTo, ['--nproc=64:64']),
        '/bin/sh', '-c', 'grep -E "^(Uid|CapEff|NoNewPrivs):" /proc/self/status; (echo x > /proc/sys/kernel/hostname) 2>/dev/null && echo WRITTEN; (echo x > /proc/sys/kernel/core_pattern) 2>/dev/null && echo WRITTEN; echo end'];
      const run = await execa(findExecutable('bwrap') ?? 'bwrap', argv, { reject: false });
      expect(run.stdout).toMatch(/^Uid:\s+1900000002\s+1900000002\s+1900000002\s+1900000002$/m);
      expect(run.stdout).toMatch(/^CapEff:\s+0+$/m);
      expect(run.stdout).toMatch(/^NoNewPrivs:\s+1$/m);
      expect(run.stdout).not.toContain('WRITTEN');
      expect(run.stdout).toContain('end');
    } finally {
      rmSync(sandbox.workspace, { recursive: true, force: true });
      rmSync(sandbox.tmp, { recursive: true, force: true });
    }
  });
});
