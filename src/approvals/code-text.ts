/*
 * The text layer of the interpreter-code reader (interpreter-code.ts): string literals of
 * Python, JavaScript, Perl, Ruby and PHP read into their value, comments and string bodies
 * masked so a search for calls never looks inside them, and bracket groups matched.
 */
import { UNKNOWN } from './command.js';

/** The languages the reader tells apart; `other` reads like Python without its quirks. */
export type CodeLanguage = 'python' | 'js' | 'perl' | 'ruby' | 'php' | 'awk' | 'other';

/** The language of an interpreter's code, by the interpreter's name. */
export function codeLanguage(program: string): CodeLanguage {
  const family = program.replace(/[\d.]+$/, '');
  if (family === 'python' || family === 'pypy') return 'python';
  if (/^(node|nodejs|bun|deno)$/.test(family)) return 'js';
  if (family === 'perl' || family === 'ruby' || family === 'php') return family;
  if (/awk$/.test(family)) return 'awk';
  return 'other';
}

/** A string literal: where it is, and its text with interpolated parts as UNKNOWN or resolved by `interpolate`. */
export interface StringLiteral {
  start: number;
  end: number;
  /** Inner text as written (escapes not processed). */
  raw: string;
  quote: string;
  prefix: string;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', "'": "'", '"': '"', '`': '`', $: '$', a: '\x07', b: '\b', e: '\x1b' };

/** Reads the literal starting at `i` (its prefix letters included), or undefined when none starts there. */
export function readString(text: string, i: number, language: CodeLanguage): StringLiteral | undefined {
  let j = i;
  let prefix = '';
  if (language === 'python') {
    const match = /^[rRbBuUfF]{1,2}(?=['"])/.exec(text.slice(i, i + 3));
    if (match) {
      prefix = match[0].toLowerCase();
      j += match[0].length;
    }
  }
  const c = text[j];
  if (c !== '"' && c !== "'" && !(c === '`' && language !== 'python' && language !== 'awk')) return undefined;
  const triple = language === 'python' && text.startsWith(c.repeat(3), j);
  const quote = triple ? c.repeat(3) : c;
  let k = j + quote.length;
  const raw = prefix.includes('r');
  while (k < text.length) {
    if (text[k] === '\\' && !(raw && text[k + 1] !== quote[0])) {
      k += 2;
      continue;
    }
    if (text.startsWith(quote, k)) return { start: i, end: k + quote.length, raw: text.slice(j + quote.length, k), quote, prefix };
    if (!triple && text[k] === '\n' && language === 'python') break;
    k++;
  }
  // Unterminated: the rest of the text is the string.
  return { start: i, end: text.length, raw: text.slice(j + quote.length), quote, prefix };
}

/**
 * The text of a literal: escapes processed; the parts a language fills in at run time
 * (`{x}` in an f-string, `${x}` in a template, `$x` in Perl's "…", `#{x}` in Ruby's) given by
 * `interpolate`, which returns UNKNOWN for what it cannot tell.
 */
export function stringValue(literal: StringLiteral, language: CodeLanguage, interpolate: (expr: string) => string): string {
  const { raw, quote, prefix } = literal;
  const interpolating =
    (language === 'python' && prefix.includes('f')) ||
    (language === 'js' && quote === '`') ||
    ((language === 'perl' || language === 'php' || language === 'ruby') && quote !== "'");
  const escapes = !prefix.includes('r') && !((language === 'perl' || language === 'php' || language === 'ruby') && quote === "'");
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\' && i + 1 < raw.length) {
      const next = raw[++i];
      if (!escapes) out += next === quote[0] || next === '\\' ? next : `\\${next}`;
      else if (next === 'x' && /^[0-9a-fA-F]{2}/.test(raw.slice(i + 1, i + 3))) {
        out += String.fromCharCode(parseInt(raw.slice(i + 1, i + 3), 16));
        i += 2;
      } else if (next === 'u' && /^[0-9a-fA-F]{4}/.test(raw.slice(i + 1, i + 5))) {
        out += String.fromCharCode(parseInt(raw.slice(i + 1, i + 5), 16));
        i += 4;
      } else if (next === '\n') continue;
      else out += ESCAPES[next] ?? `\\${next}`;
      continue;
    }
    if (interpolating) {
      const group = interpolation(raw, i, language);
      if (group) {
        out += interpolate(group.expr);
        i = group.end - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/** An interpolated part starting at `i`: its expression and where it ends. */
function interpolation(raw: string, i: number, language: CodeLanguage): { expr: string; end: number } | undefined {
  const c = raw[i];
  const braced = (from: number) => {
    const close = matchClose(raw, from);
    return close < 0 ? undefined : { expr: raw.slice(from + 1, close), end: close + 1 };
  };
  if (language === 'python') {
    if (c === '{' && raw[i + 1] === '{') return { expr: "'{'", end: i + 2 };
    if (c === '}' && raw[i + 1] === '}') return { expr: "'}'", end: i + 2 };
    if (c !== '{') return undefined;
    const group = braced(i);
    return group ? { expr: group.expr.replace(/(![rsa])?(:[^:]*)?$/, ''), end: group.end } : undefined;
  }
  if (language === 'js') return c === '$' && raw[i + 1] === '{' ? braced(i + 1) : undefined;
  if (language === 'ruby') return c === '#' && raw[i + 1] === '{' ? braced(i + 1) : undefined;
  // Perl and PHP: `$name`, `${name}`, `$ENV{HOME}`, `$h{key}`, `$a[0]`, `@list`.
  if (c !== '$' && !(c === '@' && language === 'perl')) return undefined;
  if (raw[i + 1] === '{') {
    const group = braced(i + 1);
    return group ? { expr: `$${group.expr}`, end: group.end } : undefined;
  }
  const name = /^[A-Za-z_]\w*/.exec(raw.slice(i + 1));
  if (!name) return undefined;
  let end = i + 1 + name[0].length;
  while (raw[end] === '{' || raw[end] === '[') {
    const close = matchClose(raw, end);
    if (close < 0) break;
    end = close + 1;
  }
  return { expr: raw.slice(i, end), end };
}

const OPENERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** The index of the bracket closing the one at `open`, skipping nested groups and strings; -1 when unclosed. */
export function matchClose(text: string, open: number, language: CodeLanguage = 'other'): number {
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || (c === '`' && language !== 'python')) {
      const literal = readString(text, i, language === 'other' ? 'js' : language);
      if (literal) {
        i = literal.end - 1;
        continue;
      }
    }
    if (c in OPENERS) stack.push(OPENERS[c]);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** Splits at `separator` outside brackets and strings (`a, (b, c), "d,e"` → three parts). */
export function splitTopLevel(text: string, separator: RegExp, language: CodeLanguage): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const literal = c === '"' || c === "'" || c === '`' || (language === 'python' && /[rbfuRBFU]/.test(c) && !/\w/.test(text[i - 1] ?? '')) ? readString(text, i, language) : undefined;
    if (literal && (literal.prefix !== '' || /["'`]/.test(c))) {
      i = literal.end - 1;
      continue;
    }
    if (c in OPENERS) depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (depth === 0) {
      separator.lastIndex = i;
      const match = separator.exec(text);
      if (match && match.index === i) {
        parts.push(text.slice(from, i));
        from = i + match[0].length;
        i = from - 1;
      }
    }
  }
  parts.push(text.slice(from));
  return parts;
}

/**
 * The code with every string body and comment replaced by spaces (line breaks kept), so
 * positions stay and a search for calls sees only code; and the literals found.
 */
export function maskCode(code: string, language: CodeLanguage): { masked: string; strings: StringLiteral[] } {
  const strings: StringLiteral[] = [];
  const out = code.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  const hashComments = language !== 'js';
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if ((hashComments && c === '#' && !(language === 'perl' && code[i - 1] === '$')) || ((language === 'js' || language === 'php') && c === '/' && code[i + 1] === '/')) {
      const end = code.indexOf('\n', i);
      blank(i, end < 0 ? code.length : end);
      i = end < 0 ? code.length : end;
      continue;
    }
    if ((language === 'js' || language === 'php') && c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      blank(i, end < 0 ? code.length : end + 2);
      i = end < 0 ? code.length : end + 1;
      continue;
    }
    const starts = c === '"' || c === "'" || c === '`' || (language === 'python' && /[rbfuRBFU]/.test(c) && !/[\w]/.test(code[i - 1] ?? ''));
    if (!starts) continue;
    const literal = readString(code, i, language);
    if (!literal) continue;
    strings.push(literal);
    // Keep the quotes so the masked code still shows where a literal stood.
    const bodyStart = literal.start + literal.prefix.length + literal.quote.length;
    blank(bodyStart, Math.max(bodyStart, literal.end - literal.quote.length));
    i = literal.end - 1;
  }
  return { masked: out.join(''), strings };
}

/** UNKNOWN stands for run-time text in the values below. */
export { UNKNOWN };
