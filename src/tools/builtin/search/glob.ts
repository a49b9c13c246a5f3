import { posix } from 'node:path';

/** Turns one glob (`*`, `**`, `?`, `[...]`, `{a,b}`) into a regular expression source. */
export function globToRegexSource(glob: string): string {
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slashAfter = glob[i + 2] === '/';
        const atStart = i === 0 || glob[i - 1] === '/';
        if (atStart && slashAfter) {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
      } else {
        let body = glob.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) {
      out += '|';
    } else if (c === '\\' && i + 1 < glob.length) {
      out += glob[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else {
      out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return out + ')'.repeat(braces);
}

/** A compiled `file_glob`: which files a search may look at. */
export interface FileFilter {
  /** `relToCwd` is the path relative to the environment's cwd (globs with a `/` are anchored there, as in ripgrep). */
  accepts(name: string, relToCwd: string): boolean;
  /** Folders are only ever excluded by a negated glob. */
  excludesDir(name: string, relToCwd: string): boolean;
}

/**
 * ripgrep's `--glob` rules for one glob: without a `/` it matches the base name at any
 * depth; with one it matches the path from the working folder; a leading `!` excludes.
 */
export function compileFileGlob(glob: string | null): FileFilter {
  if (!glob) return { accepts: () => true, excludesDir: () => false };
  const negated = glob.startsWith('!');
  let body = negated ? glob.slice(1) : glob;
  if (body.endsWith('/')) body = body.slice(0, -1);
  const anchored = body.includes('/');
  if (body.startsWith('/')) body = body.slice(1);
  const regex = new RegExp(`^${globToRegexSource(body)}$`);
  const test = (name: string, rel: string) => regex.test(anchored ? posix.normalize(rel) : name);
  return negated
    ? { accepts: (name, rel) => !test(name, rel), excludesDir: (name, rel) => test(name, rel) }
    : { accepts: test, excludesDir: () => false };
}
