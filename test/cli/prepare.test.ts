import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/shared/package-root.js';

/**
 * npm's `prepare` (scripts/prepare.mjs) in a stand-in clone: a recording `npm` first on PATH
 * says whether it would have built. `npx hermes` runs prepare with npm_command=exec.
 */
function clone(state: 'missing' | 'stale' | 'fresh'): { root: string; calls: () => string[]; run: (npmCommand: string) => { status: number | null; stderr: string } } {
  const root = mkdtempSync(join(tmpdir(), 'hermes-prepare-'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(join(packageRoot(), 'scripts/prepare.mjs'), join(root, 'scripts/prepare.mjs'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/index.ts'), 'export {};\n');
  writeFileSync(join(root, 'package.json'), '{}\n');
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(root, 'package.json'), past, past);
  utimesSync(join(root, 'src/index.ts'), state === 'stale' ? new Date() : past, state === 'stale' ? new Date() : past);
  if (state !== 'missing') {
    mkdirSync(join(root, 'dist/src/cli'), { recursive: true });
    writeFileSync(join(root, 'dist/src/cli/main.js'), '');
    const built = new Date(Date.now() - 30_000);
    utimesSync(join(root, 'dist/src/cli/main.js'), built, built);
  }
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const log = join(root, 'npm-calls');
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$@" >> ${JSON.stringify(log)}\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  return {
    root,
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    run: (npmCommand) => {
      const run = spawnSync(process.execPath, [join(root, 'scripts/prepare.mjs')], {
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, npm_command: npmCommand },
      });
      return { status: run.status, stderr: run.stderr };
    },
  };
}

describe('npm prepare builds after npm install, never on npx hermes', () => {
  it('npx hermes (npm exec) with sources newer than dist/ does not build, and says how to', () => {
    const c = clone('stale');
    const run = c.run('exec');
    expect(run.status).toBe(0);
    expect(c.calls()).toEqual([]);
    expect(run.stderr).toContain('npm run build');
  });

  it('npx hermes with dist/ up to date is silent and does not build', () => {
    const c = clone('fresh');
    const run = c.run('exec');
    expect(run).toEqual({ status: 0, stderr: '' });
    expect(c.calls()).toEqual([]);
  });

  it('npm install builds when dist/ is missing or older than the sources, and not when it is up to date', () => {
    for (const state of ['missing', 'stale'] as const) {
      const c = clone(state);
      expect(c.run('install').status, state).toBe(0);
      expect(c.calls(), state).toEqual(['run build']);
    }
    const fresh = clone('fresh');
    expect(fresh.run('install').status).toBe(0);
    expect(fresh.calls()).toEqual([]);
  });

  it('package.json runs it as prepare', () => {
    const scripts = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.prepare).toBe('node scripts/prepare.mjs');
  });
});
