import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { patchTool } from '../../../src/tools/builtin/index.js';
import { makeToolContext, tempDir } from '../../helpers/tool-context.js';

/* hermes-agent's patch(mode="patch", patch=...): a V4A patch over several files, all or nothing. */

function setup() {
  const cwd = tempDir('hermes-v4a-');
  writeFileSync(join(cwd, 'app.py'), 'def main():\n    x = 1\n    return x\n\ndef other():\n    return 2\n');
  writeFileSync(join(cwd, 'old.txt'), 'bye\n');
  writeFileSync(join(cwd, 'move.txt'), 'a\nb\n');
  const ctx = makeToolContext({ cwd });
  const run = (args: Record<string, unknown>) => patchTool().handler(args, ctx) as Promise<Record<string, unknown>>;
  return { cwd, run };
}

describe('patch mode="patch" (V4A)', () => {
  it('updates, adds, deletes and moves files in one patch', async () => {
    const { cwd, run } = setup();
    const patch = [
      '*** Begin Patch',
      '*** Update File: app.py',
      '@@ def other():',
      '-    return 2',
      '+    return 3',
      '*** Add File: notes/new.txt',
      '+hello',
      '+world',
      '*** Delete File: old.txt',
      '*** Update File: move.txt',
      '*** Move to: moved.txt',
      ' a',
      '-b',
      '+B',
      '*** End Patch',
    ].join('\n');
    const result = await run({ mode: 'patch', patch });
    expect(result).toMatchObject({ success: true });
    expect(result.files).toEqual([
      { path: join(cwd, 'app.py'), action: 'update' },
      { path: join(cwd, 'notes/new.txt'), action: 'add' },
      { path: join(cwd, 'old.txt'), action: 'delete' },
      { path: join(cwd, 'moved.txt'), action: 'move' },
    ]);
    expect(readFileSync(join(cwd, 'app.py'), 'utf8')).toBe('def main():\n    x = 1\n    return x\n\ndef other():\n    return 3\n');
    expect(readFileSync(join(cwd, 'notes/new.txt'), 'utf8')).toBe('hello\nworld\n');
    expect(existsSync(join(cwd, 'old.txt'))).toBe(false);
    expect(existsSync(join(cwd, 'move.txt'))).toBe(false);
    expect(readFileSync(join(cwd, 'moved.txt'), 'utf8')).toBe('a\nB\n');
    expect(result.diff).toContain('+    return 3');
  });

  it('changes nothing when one hunk does not match, and names it', async () => {
    const { cwd, run } = setup();
    const patch = '*** Begin Patch\n*** Update File: app.py\n-    x = 1\n+    x = 5\n*** Update File: move.txt\n-nope\n+yes\n*** End Patch\n';
    const result = await run({ mode: 'patch', patch });
    expect(result.error).toContain('move.txt: hunk 1');
    expect(readFileSync(join(cwd, 'app.py'), 'utf8')).toContain('x = 1');
  });

  it('mode "replace" stays the default; mode is read in any case; missing arguments are named', async () => {
    const { cwd, run } = setup();
    expect(await run({ path: 'app.py', old_string: 'x = 1', new_string: 'x = 2' })).toMatchObject({ success: true, replacements: 1 });
    expect(await run({ mode: 'PATCH', patch: '*** Begin Patch\n*** Add File: z.txt\n+z\n*** End Patch' })).toMatchObject({ success: true });
    expect(readFileSync(join(cwd, 'z.txt'), 'utf8')).toBe('z\n');
    expect((await run({ mode: 'patch' })).error).toContain('needs the V4A patch text');
    expect((await run({ old_string: 'a', new_string: 'b' })).error).toContain('needs path, old_string and new_string');
    expect((await run({ mode: 'patch', patch: 'no header' })).error).toContain('*** Begin Patch');
  });

  it('asks the write guard for every file it would touch', async () => {
    const { run } = setup();
    const result = await run({ mode: 'patch', patch: '*** Begin Patch\n*** Add File: /etc/hermes-v4a-probe\n+x\n*** End Patch' });
    expect(existsSync('/etc/hermes-v4a-probe')).toBe(false);
    expect(String(result.error)).toMatch(/patch/);
  });
});
