import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assessFileWrite } from '../../src/approvals/index.js';
import { tempDir } from '../helpers/tool-context.js';

/* assessFileWrite: what write_file and patch ask about. Paths arrive absolute or as `~/…`. */
const ctx = { home: '/home/ada', hermesHome: '/srv/hermes' };

const reasonOf = (path: string, context: Parameters<typeof assessFileWrite>[1] = ctx) => {
  const assessment = assessFileWrite(path, context);
  return assessment.level === 'safe' ? 'safe' : `${assessment.level}: ${assessment.reason}`;
};

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('assessFileWrite', () => {
  it.each([
    ['/home/ada/.ssh/authorized_keys', /~\/\.ssh\/authorized_keys \(SSH keys/],
    ['~/.ssh/authorized_keys', /~\/\.ssh\/authorized_keys \(SSH keys/],
    ['~/.ssh/id_ed25519', /SSH keys/],
    ['/home/ada/.aws/credentials', /AWS credentials/],
    ['~/.gnupg/gpg-agent.conf', /GnuPG keys/],
    ['~/.kube/config', /Kubernetes credentials/],
    ['~/.docker/config.json', /Docker registry credentials/],
    ['~/.config/gh/hosts.yml', /GitHub CLI credentials/],
    ['~/.netrc', /netrc/],
    ['~/.bashrc', /runs at every login/],
    ['~/.bash_profile', /runs at every login/],
    ['~/.profile', /runs at every login/],
    ['~/.zshrc', /runs at every login/],
    ['~/.zshenv', /runs at every login/],
    ['~/.zprofile', /runs at every login/],
    ['/srv/hermes/config.yaml', /gateway's settings \(approvals among them\)/],
    ['/srv/hermes/.env', /gateway's secrets/],
    ['/srv/hermes/plugins/evil/index.js', /plugins \(code it loads\)/],
    ['/srv/hermes/skills/deploy/SKILL.md', /gateway's skills/],
    ['/srv/hermes/approvals.yaml', /approval rules/],
    ['/home/ada/projects/../.ssh/authorized_keys', /SSH keys/],
    ['/home/ada/.ssh/', /SSH keys/],
    ['/home/bob/.ssh/authorized_keys', /\/home\/bob\/\.ssh\/authorized_keys \(SSH keys/],
    ['/root/.bashrc', /\/root\/\.bashrc \(runs at every login/],
  ])('%s waits for approval', (path, reason) => {
    const assessment = assessFileWrite(path, ctx);
    expect(assessment.level).toBe('risky');
    expect(assessment.level === 'risky' && assessment.reason).toMatch(reason);
  });

  it.each([
    '/home/ada/projects/app/main.py',
    '~/notes.md',
    '/tmp/scratch.txt',
    '/home/ada/.sshx/file',
    '/home/ada/.bashrc.bak',
    '/home/ada/projects/.env',
    '/home/ada/.config/myapp/config.toml',
    '/srv/hermes/sessions/t.json',
    '/srv/hermes/cache/exec/out.txt',
    '/srv/hermes-other/config.yaml',
    '/home/bob/projects/x.py',
  ])('%s is written without asking', (path) => {
    expect(reasonOf(path)).toBe('safe');
  });

  it("resolves ~ against the context's home, not the gateway's", () => {
    expect(reasonOf('~/.ssh/authorized_keys', { home: '/home/bob', hermesHome: '/srv/hermes' })).toMatch(/^risky: writes to ~\/\.ssh/);
    expect(reasonOf('~/.bashrc', { home: '/tmp/throwaway', hermesHome: '/srv/hermes' })).toMatch(/^risky: writes to ~\/\.bashrc/);
    expect(reasonOf('/tmp/throwaway/.bashrc', { home: '/home/bob', hermesHome: '/srv/hermes' })).toBe('safe');
  });

  it('takes HERMES_HOME from the context (the settings), else ~/.hermes; never from the process environment', () => {
    expect(reasonOf('/opt/hermes/.env', { home: '/home/ada', hermesHome: '/opt/hermes' })).toMatch(/gateway's secrets/);
    vi.stubEnv('HERMES_HOME', '/opt/hermes');
    expect(reasonOf('/home/ada/.hermes/config.yaml', { home: '/home/ada' })).toMatch(/gateway's settings/);
    expect(reasonOf('/opt/hermes/.env', { home: '/home/ada' })).toBe('safe');
    vi.unstubAllEnvs();
  });

  it('follows symlinks on this host: a folder or a file that leads into a credential folder or a start-up file', () => {
    const home = tempDir('hermes-write-home-');
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.bashrc'), '');
    mkdirSync(join(home, 'project'));
    symlinkSync(join(home, '.ssh'), join(home, 'project', 'keys'));
    symlinkSync(join(home, '.bashrc'), join(home, 'project', 'notes.txt'));
    const local = { home, hermesHome: join(home, '.hermes') };
    expect(reasonOf(join(home, 'project', 'keys', 'authorized_keys'), local)).toMatch(/^risky: writes to ~\/\.ssh\/authorized_keys/);
    expect(reasonOf(join(home, 'project', 'notes.txt'), local)).toMatch(/^risky: writes to ~\/\.bashrc/);
    expect(reasonOf(join(home, 'project', 'plain.txt'), local)).toBe('safe');
  });
});
