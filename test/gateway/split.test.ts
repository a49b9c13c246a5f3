import { describe, expect, it } from 'vitest';
import { splitMessage } from '../../src/gateway/index.js';

const markerOf = (chunk: string) => /\n\((\d+)\/(\d+)\)$/.exec(chunk);

describe('splitMessage', () => {
  it('returns a text that fits unchanged and without markers', () => {
    expect(splitMessage('hello\nworld', 100)).toEqual(['hello\nworld']);
  });

  it('cuts at line boundaries, keeps every chunk within the limit and numbers the chunks (i/n)', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i} ${'x'.repeat(20)}`);
    const chunks = splitMessage(lines.join('\n'), 200);
    expect(chunks.length).toBeGreaterThan(1);
    chunks.forEach((chunk, i) => {
      expect(chunk.length).toBeLessThanOrEqual(200);
      expect(markerOf(chunk)?.slice(1)).toEqual([String(i + 1), String(chunks.length)]);
    });
    const rejoined = chunks.map((chunk) => chunk.replace(/\n\(\d+\/\d+\)$/, '')).join('\n');
    expect(rejoined).toBe(lines.join('\n'));
  });

  it('closes a code block at a cut and reopens it with its language in the next chunk', () => {
    const code = Array.from({ length: 40 }, (_, i) => `print(${i})  # ${'c'.repeat(10)}`);
    const text = ['Here is the script:', '```python', ...code, '```', 'Done.'].join('\n');
    const chunks = splitMessage(text, 300);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(300);
      const body = chunk.replace(/\n\(\d+\/\d+\)$/, '');
      const fences = body.split('\n').filter((line) => line.startsWith('```'));
      expect(fences.length % 2, `unbalanced fences in:\n${body}`).toBe(0);
    }
    expect(chunks[1].startsWith('```python\n')).toBe(true);
    const allCode = chunks.join('\n').split('\n').filter((line) => line.startsWith('print('));
    expect(allCode).toEqual(code);
  });

  it('cuts a single line longer than the limit, preferring spaces', () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const chunks = splitMessage(words, 100);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(100);
    const rejoined = chunks.map((chunk) => chunk.replace(/\n\(\d+\/\d+\)$/, '')).join('');
    expect(rejoined).toBe(words);
    expect(chunks[0].replace(/\n\(\d+\/\d+\)$/, '').endsWith(' ')).toBe(true);
  });

  it('makes room for two-digit markers when there are ten chunks or more', () => {
    const text = Array.from({ length: 400 }, (_, i) => `row ${i}`).join('\n');
    const chunks = splitMessage(text, 64);
    expect(chunks.length).toBeGreaterThanOrEqual(10);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(64);
    expect(chunks.at(-1)).toMatch(new RegExp(`\\(${chunks.length}/${chunks.length}\\)$`));
  });

  it('starts a new chunk at a line boundary rather than mixing the end of one long line with the next', () => {
    const text = 'a'.repeat(5000) + '\n' + 'b'.repeat(5000);
    const chunks = splitMessage(text, 4096).map((chunk) => chunk.replace(/\n\(\d+\/\d+\)$/, ''));
    expect(chunks.map((chunk) => chunk.length)).toEqual([4090, 910, 4090, 910]);
    expect(chunks[1]).toBe('a'.repeat(910));
  });
});
