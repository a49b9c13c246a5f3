import { afterAll, describe, expect, it } from 'vitest';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvironmentManager, findExecutable, loadProviderRegistry } from '../../src/environments/index.js';
import { testSetup } from './helpers.js';

/*
 * A terminal.cwd owned by someone else, with the gateway as root: the sandbox runs as the
 * folder's owner, takes over an empty folder of root's, and refuses one of root's that holds files.
 */
const ready = process.platform === 'linux' && findExecutable('bwrap') !== undefined && process.getuid?.() === 0;
if (!ready && process.env.CI !== 'true') console.log('sandbox project-folder tests skipped: they need bubblewrap and root');

const folders: string[] = [];
const managers: EnvironmentManager[] = [];
afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.closeAll()));
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

async function sandboxIn(cwd: string) {
  const setup = testSetup({ terminal: { backend: 'sandbox', cwd } });
  const { registry } = await loadProviderRegistry(setup);
  const manager = new EnvironmentManager({ ...setup, registry });
  managers.push(manager);
  return manager.environmentFor('s');
}

function project(owner: number, files: Record<string, string> = {}): string {
  const folder = mkdtempSync('/var/tmp/hermes-project-');
  folders.push(folder);
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(folder, name), text);
    chownSync(join(folder, name), owner, owner);
  }
  chownSync(folder, owner, owner);
  return folder;
}

describe.runIf(ready || process.env.CI === 'true')('terminal.cwd owned by someone else, gateway as root', () => {
  it("runs as the folder's owner, so what it writes stays theirs and their files are writable", async () => {
    const folder = project(4343, { 'notes.txt': 'mine\n' });
    const environment = await sandboxIn(folder);
    const run = await environment.execute('id -u; echo more >> notes.txt; echo new > made.txt');
    expect(run.output.trim()).toBe('4343');
    expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('mine\nmore\n');
    expect(statSync(join(folder, 'made.txt')).uid).toBe(4343);
  });

  it("takes over an empty folder of root's for the sandbox's uid", async () => {
    const folder = project(0);
    const environment = await sandboxIn(folder);
    await environment.execute('echo x > made.txt');
    expect(statSync(folder).uid).not.toBe(0);
    expect(statSync(join(folder, 'made.txt')).uid).toBe(statSync(folder).uid);
  });

  it("gives a session folder made before (root's files in it) to the session's uid, so its files stay writable", async () => {
    const setup = testSetup({ terminal: { backend: 'sandbox' } });
    const old = join(setup.paths.sandboxes, 'old-session');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, 'kept.txt'), 'before\n');
    const { registry } = await loadProviderRegistry(setup);
    const manager = new EnvironmentManager({ ...setup, registry });
    managers.push(manager);
    const environment = await manager.environmentFor('old-session');
    const run = await environment.execute('echo after >> kept.txt; id -u');
    expect(readFileSync(join(old, 'kept.txt'), 'utf8')).toBe('before\nafter\n');
    expect(statSync(join(old, 'kept.txt')).uid).toBe(Number(run.output.trim()));
    expect(statSync(old).uid).not.toBe(0);
    expect(statSync(old).mode & 0o777).toBe(0o700);
    expect(statSync(setup.paths.sandboxes).mode & 0o777).toBe(0o711);
  });

  it("refuses a folder of root's that holds files, saying why and what to do", async () => {
    const folder = project(0, { 'app.py': 'print(1)\n' });
    await expect(sandboxIn(folder)).rejects.toThrow(/terminal\.cwd: .* is owned by root and not empty.*chown/);
    expect(statSync(join(folder, 'app.py')).uid).toBe(0);
  });
});
