import { globToRegexSource } from './glob.js';

/**
 * The search pattern as a JavaScript RegExp. ripgrep's leading inline flags (`(?i)`) become
 * RegExp flags; Unicode mode is used when the pattern allows it.
 */
export function compilePattern(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    if (inline[1].includes('i')) flags += 'i';
    if (inline[1].includes('s')) flags += 's';
  }
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    return new RegExp(source, flags);
  }
}

/** Regex-only syntax: when a name pattern has none of it but has `*` or `?`, it is a glob. */
const REGEX_ONLY = /\.\*|\.\+|\\|\^|\$|\(|\||\+/;

/**
 * How `target="files"` reads its pattern: `*.py` and `*config*` are globs (as the reference
 * takes them), anything else is a regular expression searched for in the file name.
 */
export function compileNamePattern(pattern: string): RegExp {
  if (!REGEX_ONLY.test(pattern) && /[*?]/.test(pattern)) return new RegExp(`^${globToRegexSource(pattern)}$`);
  return compilePattern(pattern);
}
