import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateBundle, loadExecRunner } from '../../src/cli/exec-bundle.js';
import * as modules from '../../src/cli/commands/exec-run.js';

/** A dist/ folder holding one compiled module and a CommonJS bundle built from it, with its manifest. */
function fakeDist(): { dist: string; input: string } {
  const dist = mkdtempSync(join(tmpdir(), 'hermes-exec-bundle-'));
  mkdirSync(join(dist, 'src'));
  mkdirSync(join(dist, 'exec-bundle'));
  const input = join(dist, 'src/exec-run.js');
  writeFileSync(input, 'export const compiled = true;\n');
  writeFileSync(join(dist, 'exec-bundle/exec-run.cjs'), 'exports.runExec = async function runExec() {};\n');
  const stat = statSync(input);
  writeFileSync(join(dist, 'exec-bundle/manifest.json'), JSON.stringify({ entry: 'exec-run.cjs', cache: 'exec-run.cache', inputs: { 'src/exec-run.js': [stat.size, stat.mtimeMs] } }));
  return { dist, input };
}

describe('exec bundle loading', () => {
  it('uses the bundle while every module it was built from is unchanged, with or without a code cache', async () => {
    const { dist } = fakeDist();
    const runner = await loadExecRunner({ distDir: dist, env: {} });
    expect(typeof runner.runExec).toBe('function');
    expect(runner.runExec).not.toBe(modules.runExec);
  });

  it('falls back to the modules once a module the bundle holds was rewritten (tsc ran after the bundle)', async () => {
    const { dist, input } = fakeDist();
    appendFileSync(input, '// rebuilt\n');
    expect((await loadExecRunner({ distDir: dist, env: {} })).runExec).toBe(modules.runExec);
  });

  it('falls back to the modules once a module the bundle holds was written after it, at the same size', async () => {
    const { dist, input } = fakeDist();
    const later = new Date(statSync(input).mtimeMs + 60_000);
    utimesSync(input, later, later);
    expect((await loadExecRunner({ distDir: dist, env: {} })).runExec).toBe(modules.runExec);
  });

  it('still uses the bundle when its modules carry an older mtime (npm pack sets 1985)', async () => {
    const { dist, input } = fakeDist();
    const packed = new Date('1985-10-26T08:15:00Z');
    utimesSync(input, packed, packed);
    expect((await loadExecRunner({ distDir: dist, env: {} })).runExec).not.toBe(modules.runExec);
  });

  it('falls back to the modules when the bundle has no manifest, and when HERMES_EXEC_BUNDLE=0', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'hermes-exec-bundle-none-'));
    expect((await loadExecRunner({ distDir: empty, env: {} })).runExec).toBe(modules.runExec);
    const { dist } = fakeDist();
    expect((await loadExecRunner({ distDir: dist, env: { HERMES_EXEC_BUNDLE: '0' } })).runExec).toBe(modules.runExec);
  });

  it('a code cache made from the bundle is accepted, and one made from another source is rejected and the bundle still runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermes-exec-bundle-cache-'));
    const file = join(dir, 'bundle.cjs');
    writeFileSync(file, 'exports.answer = 6 * 7;\n');
    const cache = evaluateBundle(file).script.createCachedData();
    const again = evaluateBundle(file, cache);
    expect(again.script.cachedDataRejected).toBe(false);
    expect(again.exports).toEqual({ answer: 42 });
    const other = join(dir, 'other.cjs');
    writeFileSync(other, 'exports.answer = "a different source of another length";\n');
    const stale = evaluateBundle(other, cache);
    expect(stale.script.cachedDataRejected).toBe(true);
    expect(stale.exports).toEqual({ answer: 'a different source of another length' });
  });

  it('__hermesImport in the bundle imports through Node\'s loader, relative to the bundle, also when compiled from the code cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermes-exec-bundle-import-'));
    mkdirSync(join(dir, 'bundle'));
    writeFileSync(join(dir, 'lazy.mjs'), 'export const value = 42;\n');
    const file = join(dir, 'bundle/exec-run.cjs');
    writeFileSync(file, 'exports.lazy = () => __hermesImport("../lazy.mjs");\nexports.bare = () => __hermesImport("node:path");\n');
    const cache = evaluateBundle(file).script.createCachedData();
    const cached = evaluateBundle(file, cache);
    expect(cached.script.cachedDataRejected).toBe(false);
    const { lazy, bare } = cached.exports as { lazy: () => Promise<{ value: number }>; bare: () => Promise<{ sep: string }> };
    expect((await lazy()).value).toBe(42);
    expect((await bare()).sep).toBe('/');
  });
});
