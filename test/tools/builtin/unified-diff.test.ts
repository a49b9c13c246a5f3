import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/tools/builtin/index.js';

/** Applies a unified diff to `before`, to check the diff says what changed. */
function apply(before: string, diff: string): string {
  const lines = before.split('\n');
  const out: string[] = [];
  let at = 0;
  const body = diff.split('\n').slice(2);
  for (let i = 0; i < body.length; i++) {
    const header = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(body[i]);
    if (!header) continue;
    const start = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
    while (at < start) out.push(lines[at++]);
    for (i++; i < body.length && !body[i].startsWith('@@'); i++) {
      const line = body[i];
      if (line === '' && i === body.length - 1) break;
      if (line.startsWith(' ')) {
        expect(lines[at]).toBe(line.slice(1));
        out.push(lines[at++]);
      } else if (line.startsWith('-')) {
        expect(lines[at]).toBe(line.slice(1));
        at++;
      } else if (line.startsWith('+')) out.push(line.slice(1));
    }
    i--;
  }
  while (at < lines.length) out.push(lines[at++]);
  return out.join('\n');
}

describe('unifiedDiff', () => {
  it('is empty when nothing changed', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', 'f')).toBe('');
  });

  it('shows far-apart changes as separate hunks with three lines of context', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 3\n', 'LINE 3\n').replace('line 25\n', 'LINE 25\nextra\n');
    const diff = unifiedDiff(before, after, 'f.txt');
    expect(diff.split('\n').filter((l) => l.startsWith('@@'))).toEqual(['@@ -1,6 +1,6 @@', '@@ -22,7 +22,8 @@']);
    expect(apply(before, diff)).toBe(after);
  });

  it('describes insertions at the start, deletions at the end and whole rewrites correctly', () => {
    const cases: Array<[string, string]> = [
      ['a\nb\n', 'new\na\nb\n'],
      ['a\nb\nc\n', 'a\nb\n'],
      ['x\ny\nz\n', 'p\nq\n'],
      ['', 'hello\n'],
      ['one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n', 'one\n2\nthree\nfour\nfive\nsix\n7\neight\n'],
    ];
    for (const [before, after] of cases) {
      const diff = unifiedDiff(before, after, 'f');
      expect(diff.startsWith('--- a/f\n+++ b/f\n@@ ')).toBe(true);
      expect(apply(before, diff)).toBe(after);
    }
  });

  it('agrees with a random edit of many lines', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 30; round++) {
      const before = Array.from({ length: 40 }, () => String(Math.floor(rand() * 5))).join('\n') + '\n';
      const after = before
        .split('\n')
        .map((line) => (rand() < 0.15 ? String(Math.floor(rand() * 5)) : line))
        .filter(() => rand() > 0.05)
        .join('\n');
      const normalized = after.endsWith('\n') ? after : `${after}\n`;
      expect(apply(before, unifiedDiff(before, normalized, 'f'))).toBe(normalized);
    }
  });
});
