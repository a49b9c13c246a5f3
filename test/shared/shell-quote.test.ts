import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/shared/shell-quote.js';

/** What a real POSIX shell makes of `words` quoted and joined: one argument per word, printed NUL-separated. */
function throughShell(words: string[]): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\0' ${words.map(shellQuote).join(' ')}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('shellQuote (the one quoter)', () => {
  it('always single-quotes, the empty word and plain words too', () => {
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('plain')).toBe("'plain'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });

  it('every word comes back from sh as itself: quotes, $, globs, ~, newlines, spaces, leading dashes', () => {
    const words = ['', "it's", '$HOME', '`id`', '$(id)', '*', '~', '~/x', 'a b', 'line\nbreak', '-rf', '!', '\\', '"', "''", 'FOO=bar', 'é ü'];
    expect(throughShell(words)).toEqual(words);
  });

  it('a quoted word in command position is a command name, never an assignment (the bare-word quoter got this wrong)', () => {
    const result = execFileSync('sh', ['-c', `${shellQuote('FOO=bar')} 2>&1; echo "status $?"`], { encoding: 'utf8' });
    expect(result).toMatch(/not found/);
    expect(result).toMatch(/status 127/);
  });
});
