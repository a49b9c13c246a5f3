import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadExecRunner } from '../../src/cli/exec-bundle.js';
import * as modules from '../../src/cli/commands/exec-run.js';

/** A dist/ folder holding one compiled module and a bundle built from it, with its manifest. */
function fakeDist(): { dist: URL; input: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hermes-exec-bundle-'));
  mkdirSync(join(dir, 'src'));
  mkdirSync(join(dir, 'exec-bundle'));
  const input = join(dir, 'src/exec-run.js');
  writeFileSync(input, 'export const compiled = true;\n');
  writeFileSync(join(dir, 'exec-bundle/exec-run.js'), 'export async function runExec() {}\n');
  const stat = statSync(input);
  writeFileSync(join(dir, 'exec-bundle/manifest.json'), JSON.stringify({ entry: 'exec-run.js', inputs: { 'src/exec-run.js': [stat.size, stat.mtimeMs] } }));
  return { dist: pathToFileURL(dir + '/'), input };
}

describe('exec bundle loading', () => {
  it('uses the bundle while every module it was built from is unchanged', async () => {
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

  it('falls back to the modules when the bundle has no manifest, and when HERMES_EXEC_BUNDLE=0', async () => {
    const empty = pathToFileURL(mkdtempSync(join(tmpdir(), 'hermes-exec-bundle-none-')) + '/');
    expect((await loadExecRunner({ distDir: empty, env: {} })).runExec).toBe(modules.runExec);
    const { dist } = fakeDist();
    expect((await loadExecRunner({ distDir: dist, env: { HERMES_EXEC_BUNDLE: '0' } })).runExec).toBe(modules.runExec);
  });
});
