import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { patchTool, readFileTool, writeFileTool } from '../../../src/tools/builtin/index.js';
import type { ToolContext } from '../../../src/tools/index.js';
import { makeToolContext, shellOnly, tempDir } from '../../helpers/tool-context.js';

const read = readFileTool();
const write = writeFileTool();
const patch = patchTool();

const backends: Array<[string, () => ToolContext]> = [
  ['the environment\'s readFile/writeFile', () => makeToolContext()],
  ['base64 over execute (no readFile/writeFile)', () => makeToolContext({ wrapEnvironment: shellOnly })],
];

describe.each(backends)('file tools through %s', (_label, make) => {
  it('write_file creates parent folders and returns the absolute path and byte count', async () => {
    const ctx = make();
    const result = await write.handler({ path: 'a/b/c.txt', content: 'héllo\n' }, ctx);
    expect(result).toEqual({ path: join(ctx.environment.cwd, 'a/b/c.txt'), bytes_written: 7 });
    expect(readFileSync(join(ctx.environment.cwd, 'a/b/c.txt'), 'utf8')).toBe('héllo\n');
  });

  it('write_file writes an empty file and binary-unsafe text exactly', async () => {
    const ctx = make();
    await write.handler({ path: 'empty.txt', content: '' }, ctx);
    expect(readFileSync(join(ctx.environment.cwd, 'empty.txt'), 'utf8')).toBe('');
    const tricky = "quote ' \"double\" $HOME `x` \\ \r\n";
    await write.handler({ path: "it's.txt", content: tricky }, ctx);
    expect(readFileSync(join(ctx.environment.cwd, "it's.txt"), 'utf8')).toBe(tricky);
  });

  it('read_file pages by 1-based line with total_lines and truncated, content plain', async () => {
    const ctx = make();
    writeFileSync(join(ctx.environment.cwd, 'f.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const first = (await read.handler({ path: 'f.txt', limit: 3 }, ctx)) as Record<string, unknown>;
    expect(first).toMatchObject({ content: 'line 1\nline 2\nline 3', total_lines: 10, truncated: true });
    const last = await read.handler({ path: 'f.txt', offset: 9 }, ctx);
    expect(last).toEqual({ content: 'line 9\nline 10', total_lines: 10, truncated: false });
    const whole = await read.handler({ path: join(ctx.environment.cwd, 'f.txt') }, ctx);
    expect(whole).toMatchObject({ total_lines: 10, truncated: false });
  });

  it('read_file reads a file bigger than one shell chunk whole', async () => {
    const ctx = make();
    const lines = Array.from({ length: 20_000 }, (_, i) => `row ${i} ${'x'.repeat(20)}`);
    writeFileSync(join(ctx.environment.cwd, 'big.txt'), lines.join('\n'));
    const result = (await read.handler({ path: 'big.txt', offset: 19_999, limit: 5 }, ctx)) as Record<string, unknown>;
    expect(result).toEqual({ content: `${lines[19_998]}\n${lines[19_999]}`, total_lines: 20_000, truncated: false });
  });

  it('read_file says what and where for a missing file, a folder and a binary file', async () => {
    const ctx = make();
    const cwd = ctx.environment.cwd;
    const missing = (await read.handler({ path: 'nope.txt' }, ctx)) as { error: string };
    expect(missing.error).toContain(`file not found: ${join(cwd, 'nope.txt')}`);
    mkdirSync(join(cwd, 'dir'));
    expect(((await read.handler({ path: 'dir' }, ctx)) as { error: string }).error).toContain('is a directory');
    writeFileSync(join(cwd, 'bin.dat'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    expect(((await read.handler({ path: 'bin.dat' }, ctx)) as { error: string }).error).toMatch(/bin\.dat is a binary file/);
  });

  it('patch replaces a unique string and returns a unified diff', async () => {
    const ctx = make();
    writeFileSync(join(ctx.environment.cwd, 'code.py'), 'def a():\n    return old_api_call(1)\n\nprint(a())\n');
    const result = (await patch.handler({ path: 'code.py', old_string: 'old_api_call(', new_string: 'new_api_call(' }, ctx)) as Record<string, unknown>;
    expect(result).toMatchObject({ success: true, replacements: 1 });
    expect(result.diff).toBe(
      '--- a/code.py\n+++ b/code.py\n@@ -1,4 +1,4 @@\n def a():\n-    return old_api_call(1)\n+    return new_api_call(1)\n \n print(a())\n',
    );
    expect(readFileSync(join(ctx.environment.cwd, 'code.py'), 'utf8')).toContain('new_api_call(1)');
  });

  it('patch refuses an absent string and a repeated one unless replace_all', async () => {
    const ctx = make();
    const file = join(ctx.environment.cwd, 'x.txt');
    writeFileSync(file, 'foo\nbar\nfoo\n');
    expect(((await patch.handler({ path: 'x.txt', old_string: 'baz', new_string: 'q' }, ctx)) as { error: string }).error).toContain('not found');
    const twice = (await patch.handler({ path: 'x.txt', old_string: 'foo', new_string: 'q' }, ctx)) as { error: string };
    expect(twice.error).toContain('occurs 2 times');
    expect(readFileSync(file, 'utf8')).toBe('foo\nbar\nfoo\n');
    const all = await patch.handler({ path: 'x.txt', old_string: 'foo', new_string: 'q', replace_all: true }, ctx);
    expect(all).toMatchObject({ success: true, replacements: 2 });
    expect(readFileSync(file, 'utf8')).toBe('q\nbar\nq\n');
  });

  it('patch of a missing file is an error, not a throw', async () => {
    const ctx = make();
    const result = (await patch.handler({ path: 'missing.py', old_string: 'a', new_string: 'b' }, ctx)) as { error: string };
    expect(result.error).toContain('file not found');
  });
});

describe('file tool arguments', () => {
  it('bad or unknown arguments become { error } naming the argument', async () => {
    const ctx = makeToolContext();
    const bad = (await read.handler({ path: 'x', offset: 0 }, ctx)) as { error: string };
    expect(bad.error).toMatch(/^Invalid arguments for read_file: offset/);
    const missing = (await write.handler({ path: 'x' }, ctx)) as { error: string };
    expect(missing.error).toMatch(/content/);
    const unknown = (await patch.handler({ path: 'x', old_string: 'a', new_string: 'b', bogus: 1 }, ctx)) as { error: string };
    expect(unknown.error).toMatch(/bogus/);
  });

  it('patch handles a CRLF file when old_string is written with \\n', async () => {
    const ctx = makeToolContext();
    const file = join(ctx.environment.cwd, 'win.txt');
    writeFileSync(file, 'one\r\ntwo\r\nthree\r\n');
    const result = await patch.handler({ path: 'win.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' }, ctx);
    expect(result).toMatchObject({ success: true, replacements: 1 });
    expect(readFileSync(file, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('read_file cuts a single huge line with a note', async () => {
    const ctx = makeToolContext();
    writeFileSync(join(ctx.environment.cwd, 'min.js'), 'x'.repeat(60_000));
    const result = (await read.handler({ path: 'min.js' }, ctx)) as { content: string };
    expect(result.content.length).toBeLessThan(51_000);
    expect(result.content).toMatch(/\[line truncated, 60000 chars\]$/);
  });
});

describe('file tools on the local environment', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('expand ~ to the home folder', async () => {
    const home = tempDir('hermes-home-user-');
    vi.stubEnv('HOME', home);
    const ctx = makeToolContext();
    expect(await write.handler({ path: '~/notes/today.md', content: 'hi' }, ctx)).toEqual({ path: join(home, 'notes/today.md'), bytes_written: 2 });
    expect(await read.handler({ path: '~/notes/today.md' }, ctx)).toEqual({ content: 'hi', total_lines: 1, truncated: false });
  });

  it('read_file suggests similar names for a missing file', async () => {
    const ctx = makeToolContext();
    mkdirSync(join(ctx.environment.cwd, 'src'));
    for (const name of ['Config.yaml', 'config.yml', 'other.txt']) writeFileSync(join(ctx.environment.cwd, 'src', name), 'x');
    const result = (await read.handler({ path: 'src/config.yaml' }, ctx)) as { error: string; similar_files: string[] };
    expect(result.similar_files).toEqual(['src/Config.yaml', 'src/config.yml']);
    expect(result.error).toMatch(/file not found: .*src\/config\.yaml .*Similar: src\/Config\.yaml, src\/config\.yml$/);
  });

  it('read_file stops at about 4 MB of content and says where to continue', async () => {
    const ctx = makeToolContext();
    const line = 'w'.repeat(9_999);
    writeFileSync(join(ctx.environment.cwd, 'wide.txt'), `${line}\n`.repeat(1000));
    const result = (await read.handler({ path: 'wide.txt' }, ctx)) as { content: string; truncated: boolean; hint: string };
    expect(result.content.split('\n')).toHaveLength(400);
    expect(result.truncated).toBe(true);
    expect(result.hint).toMatch(/use offset=401 to continue/);
  });

  it('refuse a file over the size limit without loading it', async () => {
    const ctx = makeToolContext();
    const file = join(ctx.environment.cwd, 'huge.log');
    writeFileSync(file, '');
    truncateSync(file, 60 * 1024 * 1024);
    const result = (await read.handler({ path: 'huge.log' }, ctx)) as { error: string };
    expect(result.error).toMatch(/huge\.log is 62914560 bytes, over the 52428800-byte limit/);
  });
});
