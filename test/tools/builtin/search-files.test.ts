import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readFileTool, searchFilesTool } from '../../../src/tools/builtin/index.js';
import type { Tool, ToolContext } from '../../../src/tools/index.js';
import { makeToolContext, shellOnly } from '../../helpers/tool-context.js';

const hasRg = (() => {
  try {
    execFileSync('rg', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasRg && process.env.CI !== 'true') console.log('search_files: ripgrep (rg) not installed; ripgrep comparisons skipped (apt-get install ripgrep)');
const runRg = hasRg || process.env.CI === 'true';

const rg = searchFilesTool({ backend: 'ripgrep' });
const builtin = searchFilesTool({ backend: 'builtin' });
const auto = searchFilesTool();

const TREE: Record<string, string | Buffer> = {
  'a.txt': 'foo top\n',
  'a/b.txt': 'foo 1\nbar\nfoo 2\n',
  'a/deep/d.txt': 'nothing\nFOO upper\nfoo lower\n',
  'a-c/z.txt': 'foo\n',
  'B/q.py': 'import foo\nprint(foo)\n',
  '.hidden/h.txt': 'foo hidden\n',
  '.git/config': 'foo in git\n',
  'node_modules/pkg/index.js': 'foo in deps\n',
  'sub/node_modules/x.js': 'foo nested deps\n',
  'bin.dat': Buffer.concat([Buffer.from('foo\n'), Buffer.from([0, 1, 2]), Buffer.from('\nfoo\n')]),
  'ctx.txt': 'x\nfoo\ny\nz\nfoo\nw\n',
  'crlf.txt': 'one foo\r\ntwo\r\n',
  'src/app.config.yaml': 'database: foo\n',
  'src/util.py': 'old_api_call(1)\nold_api_call(2)\n',
  'long.txt': `${'y'.repeat(1000)}foo\n`,
  'noeol.txt': 'last foo',
};

let cwd = '';
const ctx = (): ToolContext => makeToolContext({ cwd });

beforeAll(() => {
  const made = makeToolContext();
  cwd = made.environment.cwd;
  for (const [path, content] of Object.entries(TREE)) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), content);
  }
});

const QUERIES: Array<Record<string, unknown>> = [
  { pattern: 'foo' },
  { pattern: 'foo', context: 1 },
  { pattern: 'foo', context: 2, path: 'a' },
  { pattern: 'foo', file_glob: '*.txt' },
  { pattern: 'foo', file_glob: '*.{py,yaml}' },
  { pattern: 'foo', file_glob: 'a/*.txt' },
  { pattern: 'foo', file_glob: '**/deep/*.txt' },
  { pattern: 'foo', file_glob: '!*.txt' },
  { pattern: 'foo', output_mode: 'files_with_matches' },
  { pattern: 'foo', output_mode: 'count' },
  { pattern: 'foo', limit: 3, offset: 2 },
  { pattern: 'foo', output_mode: 'count', limit: 2, offset: 1 },
  { pattern: '(?i)FOO', path: 'a/' },
  { pattern: 'fo+\\s\\d', path: './a' },
  { pattern: 'foo', path: 'a/b.txt' },
  { pattern: 'foo', path: 'bin.dat' },
  { pattern: 'foo', path: 'a/b.txt', file_glob: '*.py' },
  { pattern: 'foo', path: 'node_modules' },
  { pattern: 'foo', path: 'sub', output_mode: 'count' },
  { pattern: '*', target: 'files', path: 'node_modules' },
  { pattern: 'old_api_call', path: 'src/', file_glob: '*.py' },
  { pattern: '*.txt', target: 'files' },
  { pattern: 'config', target: 'files' },
  { pattern: '*.py', target: 'files', path: 'B' },
  { pattern: '.*\\.txt$', target: 'files', limit: 4, offset: 1 },
  { pattern: 'nomatch-anywhere' },
];

describe.runIf(runRg)('search_files: ripgrep and the built-in search agree', () => {
  it.each(QUERIES.map((q) => [JSON.stringify(q), q] as const))('same results for %s', async (_name, query) => {
    const fromRg = await rg.handler(query, ctx());
    const fromBuiltin = await builtin.handler(query, ctx());
    expect(fromRg).not.toHaveProperty('error');
    expect(fromBuiltin).toEqual(fromRg);
  });

  it('agrees on an absolute search root, whose results are absolute', async () => {
    const query = { pattern: 'foo', path: join(cwd, 'a') };
    const fromRg = (await rg.handler(query, ctx())) as { matches: Array<{ path: string }> };
    expect(fromRg.matches[0].path).toBe(join(cwd, 'a/b.txt'));
    expect(await builtin.handler(query, ctx())).toEqual(fromRg);
  });
});

const BACKENDS: Array<[string, () => Tool]> = [['built-in', () => builtin], ...(runRg ? [['ripgrep', () => rg] as [string, () => Tool]] : [])];

describe.each(BACKENDS)('search_files (%s)', (_label, tool) => {
  it('sorts by path (names bytewise, folder by folder) then line, and skips .git, node_modules and binary files', async () => {
    const result = (await tool().handler({ pattern: 'foo', limit: 100 }, ctx())) as {
      matches: Array<{ path: string; line: number; content: string }>;
      total_count: number;
      truncated: boolean;
    };
    expect(result.matches.map((m) => `${m.path}:${m.line}`)).toEqual([
      '.hidden/h.txt:1',
      'B/q.py:1',
      'B/q.py:2',
      'a/b.txt:1',
      'a/b.txt:3',
      'a/deep/d.txt:3',
      'a-c/z.txt:1',
      'a.txt:1',
      'crlf.txt:1',
      'ctx.txt:2',
      'ctx.txt:5',
      'long.txt:1',
      'noeol.txt:1',
      'src/app.config.yaml:1',
    ]);
    expect(result.total_count).toBe(14);
    expect(result.truncated).toBe(false);
    expect(result.matches.find((m) => m.path === 'crlf.txt')?.content).toBe('one foo');
    expect(result.matches.find((m) => m.path === 'long.txt')?.content).toMatch(/^y{500}\.\.\. \[line truncated, 1003 chars\]$/);
  });

  it('attaches context lines before and after each match', async () => {
    const result = (await tool().handler({ pattern: 'foo', path: 'ctx.txt', context: 1 }, ctx())) as { matches: unknown[] };
    expect(result.matches).toEqual([
      { path: 'ctx.txt', line: 2, content: 'foo', before: [{ line: 1, content: 'x' }], after: [{ line: 3, content: 'y' }] },
      { path: 'ctx.txt', line: 5, content: 'foo', before: [{ line: 4, content: 'z' }], after: [{ line: 6, content: 'w' }] },
    ]);
  });

  it('pages with limit and offset, counting the whole result', async () => {
    const page = await tool().handler({ pattern: 'foo', output_mode: 'files_with_matches', limit: 2, offset: 1 }, ctx());
    expect(page).toEqual({ files: ['B/q.py', 'a/b.txt'], total_count: 11, truncated: true });
    const counts = await tool().handler({ pattern: 'foo', path: 'a', output_mode: 'count' }, ctx());
    expect(counts).toEqual({
      counts: [
        { path: 'a/b.txt', count: 2 },
        { path: 'a/deep/d.txt', count: 1 },
      ],
      total_count: 2,
      truncated: false,
    });
  });

  it('lists files by name with target="files", globs and regexes alike', async () => {
    expect(await tool().handler({ pattern: '*.py', target: 'files' }, ctx())).toEqual({
      files: ['B/q.py', 'src/util.py'],
      total_count: 2,
      truncated: false,
    });
    expect(await tool().handler({ pattern: 'config', target: 'files' }, ctx())).toEqual({
      files: ['src/app.config.yaml'],
      total_count: 1,
      truncated: false,
    });
  });

  it('returns paths that read_file opens from the same working folder', async () => {
    const found = (await tool().handler({ pattern: 'old_api_call', path: 'src/', file_glob: '*.py' }, ctx())) as {
      matches: Array<{ path: string }>;
    };
    expect(found.matches.map((m) => m.path)).toEqual(['src/util.py', 'src/util.py']);
    const read = (await readFileTool().handler({ path: found.matches[0].path }, ctx())) as { content: string };
    expect(read.content).toBe('old_api_call(1)\nold_api_call(2)');
  });

  it('expands ~ in the search root, showing absolute paths', async () => {
    const home = dirname(cwd);
    const previous = process.env.HOME;
    process.env.HOME = home;
    try {
      const result = (await tool().handler({ pattern: 'foo', path: `~/${basename(cwd)}/a` }, ctx())) as { matches: Array<{ path: string }> };
      expect(result.matches[0].path).toBe(join(cwd, 'a/b.txt'));
    } finally {
      process.env.HOME = previous;
    }
  });

  it('a missing path is an error that says where it looked', async () => {
    const result = (await tool().handler({ pattern: 'x', path: 'no/such' }, ctx())) as { error: string };
    expect(result.error).toBe(`search_files: path not found: ${join(cwd, 'no/such')} (relative paths start at ${cwd})`);
  });
});

describe('search_files choices', () => {
  it.runIf(runRg)('auto uses ripgrep when the environment has it', async () => {
    expect(await auto.handler({ pattern: 'foo', path: 'a' }, ctx())).toEqual(await rg.handler({ pattern: 'foo', path: 'a' }, ctx()));
  });

  it.runIf(runRg)('runs ripgrep through execute on an environment without host access', async () => {
    const remote = makeToolContext({ cwd, wrapEnvironment: shellOnly });
    const result = await auto.handler({ pattern: 'foo', path: 'a' }, remote);
    expect(result).toEqual(await builtin.handler({ pattern: 'foo', path: 'a' }, ctx()));
  });

  it.runIf(runRg)('through execute, results larger than the output cap come back whole', async () => {
    const big = join(cwd, 'big');
    mkdirSync(big, { recursive: true });
    for (let f = 0; f < 20; f++) {
      writeFileSync(join(big, `f${String(f).padStart(2, '0')}.txt`), Array.from({ length: 100 }, (_, i) => `needle ${f}-${i} ${'p'.repeat(40)}`).join('\n'));
    }
    const remote = makeToolContext({ cwd, wrapEnvironment: shellOnly });
    for (const query of [
      { pattern: 'needle', path: 'big', limit: 5, offset: 1990 },
      { pattern: 'needle', path: 'big', output_mode: 'count', limit: 100 },
    ]) {
      const result = (await auto.handler(query, remote)) as { total_count: number };
      expect(result).toEqual(await builtin.handler(query, ctx()));
    }
    expect(((await auto.handler({ pattern: 'needle', path: 'big' }, remote)) as { total_count: number }).total_count).toBe(2000);
  });

  it.runIf(runRg)('through execute, a missing root is an error that names it', async () => {
    const remote = makeToolContext({ cwd, wrapEnvironment: shellOnly });
    const result = (await auto.handler({ pattern: 'foo', path: 'no/such' }, remote)) as { error: string };
    expect(result.error).toBe(`search_files: path not found or not readable: ${join(cwd, 'no/such')} (relative paths start at ${cwd})`);
    const regex = (await auto.handler({ pattern: '(unclosed' }, remote)) as { error: string };
    expect(regex.error).toMatch(/^search_files: ripgrep failed: .*regex parse error/s);
  });

  it('an invalid regex is an error for the built-in search', async () => {
    const result = (await builtin.handler({ pattern: '(unclosed' }, ctx())) as { error: string };
    expect(result.error).toMatch(/^search_files: invalid pattern "\(unclosed"/);
  });

  it.runIf(runRg)('an invalid regex is an error for ripgrep too', async () => {
    const result = (await rg.handler({ pattern: '(unclosed' }, ctx())) as { error: string };
    expect(result.error).toMatch(/^search_files: ripgrep failed: .*regex parse error/s);
  });

  it('accepts the reference spellings files_only and target="grep"', async () => {
    const result = await builtin.handler({ pattern: 'foo', path: 'a', target: 'grep', output_mode: 'files_only' }, ctx());
    expect(result).toEqual({ files: ['a/b.txt', 'a/deep/d.txt'], total_count: 2, truncated: false });
  });
});
