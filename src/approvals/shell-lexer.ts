/*
 * Bash's tokens, read the way bash reads them: quotes, escapes, `$…` expansions, command
 * and process substitutions, here-documents and redirections with their fd numbers. A
 * carriage return or a control character is an ordinary word character (as in bash), never
 * a separator. The lexer does not expand anything; shell-expand.ts does that.
 */

import { PartsBuilder } from './parts-builder.js';

/** One piece of a word. `quoted` parts are not field-split or globbed. */
export type Part =
  | { kind: 'lit'; text: string; quoted: boolean }
  | { kind: 'param'; name: string; op: string; arg: Part[]; quoted: boolean }
  | { kind: 'cmdsub'; script: string; quoted: boolean }
  | { kind: 'arith'; expr: string; quoted: boolean }
  | { kind: 'procsub'; script: string };

export interface WordToken {
  kind: 'word';
  parts: Part[];
  /** The source text of the word (for brace expansion and here-doc delimiters). */
  raw: string;
  /** Where the word starts and ends in the text (a function's body is the text between its braces). */
  start: number;
  end: number;
}

export interface HereDoc {
  body: string;
  /** A quoted delimiter (`<<'EOF'`): the body is taken literally. */
  quoted: boolean;
  /** The body as the parts of a double-quoted string (expansions run) when not quoted. */
  parts: Part[];
}

export type Token =
  | WordToken
  | { kind: 'op'; op: string }
  | { kind: 'redir'; op: string; fd: string; heredoc?: HereDoc }
  | { kind: 'arith-cmd'; expr: string };

/** What the lexer saw that bash would read differently or refuse. */
export interface LexNotes {
  unterminated: boolean;
}

const OPERATORS = [';;&', '&>>', '<<<', '<<-', ';;', ';&', '&&', '||', '|&', '&>', '>>', '>|', '>&', '<&', '<<', '<>', '|', '&', ';', '(', ')', '>', '<', '\n'];
const REDIRECTS = new Set(['&>>', '<<<', '<<-', '&>', '>>', '>|', '>&', '<&', '<<', '<>', '>', '<']);
const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const SPECIAL_PARAMS = new Set(['@', '*', '#', '?', '-', '$', '!', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** The index just after the `)` that closes a `(` opened before `start`; quotes, escapes and nesting respected. */
export function closeParen(text: string, start: number): number {
  let depth = 1;
  let i = start;
  // The depths at which a `case … esac` is open: there a `)` ends a pattern (`x)`), not the parenthesis.
  const cases: number[] = [];
  // A keyword only where a command starts: `printf then case` passes `case` as a word.
  const atCommand = (at: number, depth = 0): boolean => {
    const before = text.slice(start, at).replace(/[ \t]+$/, '');
    if (before === '' || /[;&|(\n]$/.test(before)) return true;
    // After `then`, `do`… only when that word is itself where a command starts.
    const word = /(^|[\s;&|(])(then|do|else|elif|if|while|until|!|\{)$/.exec(before);
    return word !== null && depth < 8 && atCommand(start + before.length - word[2].length, depth + 1);
  };
  const keyword = (word: string) => text.startsWith(word, i) && /^[\s;&|()]?$/.test(text[i + word.length] ?? '') && (word === 'esac' ? /[\s;&|()]/.test(text[i - 1] ?? ' ') : atCommand(i));
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === "'") i = skipTo(text, i + 1, "'") + 1;
    else if (c === '"') i = closeDouble(text, i + 1) + 1;
    else if (c === '`') i = closeBacktick(text, i + 1) + 1;
    else if (keyword('case')) {
      cases.push(depth);
      i += 4;
    } else if (keyword('esac') && cases.length > 0) {
      cases.pop();
      i += 4;
    } else {
      if (c === '(') depth++;
      else if (c === ')' && cases[cases.length - 1] === depth) {
        i++;
        continue;
      } else if (c === ')' && --depth === 0) return i + 1;
      i++;
    }
  }
  return text.length;
}

function skipTo(text: string, from: number, char: string): number {
  const end = text.indexOf(char, from);
  return end < 0 ? text.length : end;
}

/** Index of the `"` closing a double-quoted string whose body starts at `from`. */
function closeDouble(text: string, from: number): number {
  let i = from;
  while (i < text.length && text[i] !== '"') {
    if (text[i] === '\\') i += 2;
    else if (text.startsWith('$(', i)) i = closeParen(text, i + 2);
    else if (text.startsWith('${', i)) i = closeBrace(text, i + 2);
    else if (text[i] === '`') i = closeBacktick(text, i + 1) + 1;
    else i++;
  }
  return Math.min(i, text.length);
}

function closeBacktick(text: string, from: number): number {
  let i = from;
  while (i < text.length && text[i] !== '`') i += text[i] === '\\' ? 2 : 1;
  return Math.min(i, text.length);
}

/** The index just after the `}` closing a `${` whose body starts at `from`. */
function closeBrace(text: string, from: number): number {
  let depth = 1;
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') i += 2;
    else if (c === "'") i = skipTo(text, i + 1, "'") + 1;
    else if (c === '"') i = closeDouble(text, i + 1) + 1;
    else if (text.startsWith('$(', i)) i = closeParen(text, i + 2);
    else if (text.startsWith('${', i)) {
      depth++;
      i += 2;
    } else if (c === '}' && --depth === 0) return i + 1;
    else i++;
  }
  return text.length;
}

/** `$'…'` escapes, as bash decodes them; a NUL (`\0`, `\c@`, `\x00`) ends the string there, as it does in bash. */
function ansiC(body: string): string {
  const decoded = decodeAnsi(body);
  const nul = decoded.indexOf('\0');
  return nul < 0 ? decoded : decoded.slice(0, nul);
}

function decodeAnsi(body: string): string {
  const simple: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (_all, esc: string) => {
    if (esc in simple) return simple[esc];
    if (/^x/.test(esc) || /^[uU]/.test(esc)) {
      // A code point past U+10FFFF is no character: bash keeps the escape as written.
      const code = Number.parseInt(esc.slice(1), 16) || 0;
      return code > 0x10ffff ? `\\${esc}` : String.fromCodePoint(code);
    }
    if (/^[0-7]/.test(esc)) return String.fromCharCode(Number.parseInt(esc, 8) & 0xff);
    if (esc.startsWith('c')) return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
    return `\\${esc}`;
  });
}

/** Index of the closing `'` of `$'…'` (backslash escapes a quote there). */
function closeAnsi(text: string, from: number): number {
  let i = from;
  while (i < text.length && text[i] !== "'") i += text[i] === '\\' ? 2 : 1;
  return Math.min(i, text.length);
}

/** Reads `${…}`'s body into a param part. */
function paramPart(body: string, quoted: boolean): Part {
  let rest = body;
  let prefix = '';
  if (rest.startsWith('#') && rest.length > 1 && !/^#[:}#%/]/.test(rest)) {
    prefix = '#';
    rest = rest.slice(1);
  } else if (rest.startsWith('!') && rest.length > 1) {
    prefix = '!';
    rest = rest.slice(1);
  }
  const name = NAME.exec(rest)?.[0] ?? /^(\d+|[@*#?$!-])/.exec(rest)?.[0] ?? '';
  rest = rest.slice(name.length);
  let index = '';
  if (rest.startsWith('[')) {
    const end = rest.indexOf(']');
    index = rest.slice(0, end < 0 ? rest.length : end + 1);
    rest = rest.slice(index.length);
  }
  const op = /^(:[-=?+]|[-=?+]|##|#|%%|%|\/\/|\/#|\/%|\/|\^\^|\^|,,|,|@[A-Za-z]|:)/.exec(rest)?.[0] ?? (rest === '' ? '' : '?unknown');
  const arg = op === '?unknown' ? rest : rest.slice(op.length);
  // An index or an indirection (`${!x}`, `${a[$(cmd)]}`) is never resolved; its text still runs.
  const fullOp = prefix === '!' ? `!${op}` : prefix === '#' ? '#len' : index ? `[]${op}` : op;
  const argParts = lexString(index ? `${index.slice(1, -1)} ${arg}` : arg, false);
  return { kind: 'param', name, op: fullOp, arg: argParts, quoted };
}

/** The parts of a string as it appears in a word: `inDouble` reads it as the inside of "…" (a here-doc body). */
export function lexString(text: string, inDouble: boolean): Part[] {
  const lexer = new Lexer(text);
  return inDouble ? lexer.doubleBody(text.length, true) : lexer.wordParts(true).parts;
}

export class Lexer {
  private i = 0;
  readonly notes: LexNotes = { unterminated: false };
  private readonly pendingHeredocs: Array<{ token: { kind: 'redir'; op: string; fd: string; heredoc?: HereDoc }; delimiter: string; quoted: boolean; strip: boolean }> = [];

  constructor(private readonly text: string) {}

  tokens(): Token[] {
    const out: Token[] = [];
    const text = this.text;
    let fd = '';
    while (this.i < text.length) {
      const c = text[this.i];
      if (c === ' ' || c === '\t') {
        this.i++;
        continue;
      }
      if (c === '\\' && text[this.i + 1] === '\n') {
        this.i += 2;
        continue;
      }
      if (c === '#') {
        while (this.i < text.length && text[this.i] !== '\n') this.i++;
        continue;
      }
      const last = out[out.length - 1];
      if (last?.kind === 'word' && last.raw === '=~') {
        out.push(this.regexWord());
        continue;
      }
      if (text.startsWith('((', this.i) && this.atCommandStart(out)) {
        const end = closeParen(text, this.i + 1);
        out.push({ kind: 'arith-cmd', expr: text.slice(this.i + 2, Math.max(this.i + 2, end - 2)) });
        this.i = end;
        continue;
      }
      if ((c === '<' || c === '>') && text[this.i + 1] === '(') {
        out.push(this.word());
        continue;
      }
      const op = OPERATORS.find((candidate) => text.startsWith(candidate, this.i));
      if (op) {
        this.i += op.length;
        if (REDIRECTS.has(op)) {
          const token: { kind: 'redir'; op: string; fd: string; heredoc?: HereDoc } = { kind: 'redir', op, fd };
          out.push(token);
          fd = '';
          if (op === '<<' || op === '<<-') out.push(this.heredocDelimiter(token, op === '<<-'));
          continue;
        }
        fd = '';
        out.push({ kind: 'op', op });
        if (op === '\n') this.readHeredocBodies();
        continue;
      }
      const word = this.word();
      // `2>file`, `{fd}>file`: a word of digits (or `{name}`) right before a redirection is its fd.
      if (/^(\d+|\{[A-Za-z_]\w*\})$/.test(word.raw) && (text[this.i] === '<' || text[this.i] === '>') && text[this.i + 1] !== '(') {
        fd = word.raw;
        continue;
      }
      out.push(word);
    }
    this.readHeredocBodies();
    return out;
  }

  /**
   * The pattern after `=~` in `[[ … ]]`: bash reads parentheses and `#` there as part of the
   * regular expression (`[[ a =~ (a)# ]]`), up to a blank outside them. Quotes are kept as they are.
   */
  private regexWord(): WordToken {
    const text = this.text;
    const start = this.i;
    let depth = 0;
    while (this.i < text.length) {
      const c = text[this.i];
      if (depth === 0 && (c === ' ' || c === '\t' || c === '\n')) break;
      if (c === '\\') this.i += 2;
      else if (c === "'") this.i = skipTo(text, this.i + 1, "'") + 1;
      else if (c === '"') this.i = closeDouble(text, this.i + 1) + 1;
      else {
        if (c === '(') depth++;
        else if (c === ')') depth--;
        this.i++;
      }
    }
    this.i = Math.min(this.i, text.length);
    const raw = text.slice(start, this.i);
    return { kind: 'word', parts: [{ kind: 'lit', text: raw, quoted: true }], raw, start, end: this.i };
  }

  /** `((` opens an arithmetic command only where a command may start. */
  private atCommandStart(out: Token[]): boolean {
    const last = out[out.length - 1];
    if (!last) return true;
    if (last.kind === 'op') return last.op !== ')';
    return last.kind === 'word' && /^(then|do|else|elif|if|while|until|for|!|\{)$/.test(last.raw);
  }

  /** Reads a here-doc's delimiter word (returned as the redirection's target) and queues its body. */
  private heredocDelimiter(token: { kind: 'redir'; op: string; fd: string; heredoc?: HereDoc }, strip: boolean): WordToken {
    while (this.text[this.i] === ' ' || this.text[this.i] === '\t') this.i++;
    const start = this.i;
    const word = this.word();
    const raw = this.text.slice(start, this.i);
    const quoted = /['"\\]/.test(raw);
    const delimiter = word.parts.map((part) => (part.kind === 'lit' ? part.text : '')).join('') || raw.replace(/['"\\]/g, '');
    this.pendingHeredocs.push({ token, delimiter, quoted, strip });
    return word;
  }

  private readHeredocBodies(): void {
    while (this.pendingHeredocs.length > 0) {
      const pending = this.pendingHeredocs.shift()!;
      const lines: string[] = [];
      let closed = false;
      while (this.i < this.text.length) {
        const nl = this.text.indexOf('\n', this.i);
        const end = nl < 0 ? this.text.length : nl;
        let line = this.text.slice(this.i, end);
        this.i = nl < 0 ? this.text.length : nl + 1;
        if (pending.strip) line = line.replace(/^\t+/, '');
        if (line === pending.delimiter) {
          closed = true;
          break;
        }
        lines.push(line);
      }
      if (!closed) this.notes.unterminated = true;
      const body = lines.length > 0 ? `${lines.join('\n')}\n` : '';
      pending.token.heredoc = { body, quoted: pending.quoted, parts: pending.quoted ? [{ kind: 'lit', text: body, quoted: true }] : lexString(body, true) };
    }
  }

  private word(): WordToken {
    const start = this.i;
    const { parts } = this.wordParts(false);
    return { kind: 'word', parts, raw: this.text.slice(start, this.i), start, end: this.i };
  }

  /** Reads one word's parts; `all` reads to the end of the text (a `${x:-…}` argument, a here-doc). */
  wordParts(all: boolean): { parts: Part[] } {
    const text = this.text;
    const out = new PartsBuilder(false);
    while (this.i < text.length) {
      const c = text[this.i];
      if (!all && META.has(c)) {
        if ((c === '<' || c === '>') && text[this.i + 1] === '(') {
          const end = closeParen(text, this.i + 2);
          out.push({ kind: 'procsub', script: text.slice(this.i + 2, end - 1) });
          this.i = end;
          continue;
        }
        // `@(a|b)`, `!(x)`, `+(…)`, `*(…)`, `?(…)`: an extended glob keeps its parentheses in the word, and a `#` after them is not a comment.
        if (c === '(' && /[@!+*?]$/.test(out.pending)) {
          const end = closeParen(text, this.i + 1);
          if (end >= text.length && text[end - 1] !== ')') this.notes.unterminated = true;
          out.add(text.slice(this.i, end));
          this.i = end;
          continue;
        }
        // `arr=(a b)`: a compound assignment keeps its parenthesised list in the word.
        if (c === '(' && /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=$/.test(out.pending) && out.parts.length === 0) {
          const end = closeParen(text, this.i + 1);
          out.add(text.slice(this.i, end));
          this.i = end;
          continue;
        }
        break;
      }
      if (c === '\\') {
        if (text[this.i + 1] === '\n') this.i += 2;
        else {
          out.push({ kind: 'lit', text: text[this.i + 1] ?? '', quoted: true });
          this.i += 2;
        }
        continue;
      }
      if (c === "'") {
        const end = skipTo(text, this.i + 1, "'");
        if (end >= text.length) this.notes.unterminated = true;
        out.push({ kind: 'lit', text: text.slice(this.i + 1, end), quoted: true });
        this.i = end + 1;
        continue;
      }
      if (c === '"') {
        const end = closeDouble(text, this.i + 1);
        if (end >= text.length) this.notes.unterminated = true;
        const inner = new Lexer(text.slice(this.i + 1, end));
        const body = inner.doubleBody(end - this.i - 1, false);
        out.push(...(body.length > 0 ? body : [{ kind: 'lit' as const, text: '', quoted: true }]));
        this.i = end + 1;
        continue;
      }
      if (c === '$' && text.startsWith('\\\n', this.i + 1)) {
        // bash joins a line ended by `\` before it reads words: `$\⏎'…'` is `$'…'`, `$\⏎"…"` is `$"…"`.
        let j = this.i + 1;
        while (text.startsWith('\\\n', j)) j += 2;
        if (text[j] === "'") {
          const end = closeAnsi(text, j + 1);
          if (end >= text.length) this.notes.unterminated = true;
          out.push({ kind: 'lit', text: ansiC(text.slice(j + 1, end)), quoted: true });
          this.i = end + 1;
        } else if (text[j] === '"') this.i = j;
        else {
          // Any other expansion split this way is not read here: the command is asked about.
          this.notes.unterminated = true;
          out.add('$');
          this.i = j;
        }
        continue;
      }
      if (c === '$' && text[this.i + 1] === "'") {
        const end = closeAnsi(text, this.i + 2);
        out.push({ kind: 'lit', text: ansiC(text.slice(this.i + 2, end)), quoted: true });
        this.i = end + 1;
        continue;
      }
      if (c === '$' && text[this.i + 1] === '"') {
        this.i++;
        continue;
      }
      if (c === '$' || c === '`') {
        this.expansionInto(out, false);
        continue;
      }
      out.add(c);
      this.i++;
    }
    return { parts: out.done() };
  }

  /** The parts of the inside of "…" (or of an unquoted here-doc body, where `"` is literal). */
  doubleBody(length: number, heredoc: boolean): Part[] {
    const text = this.text;
    const out = new PartsBuilder(true);
    while (this.i < length) {
      const c = text[this.i];
      if (c === '\\') {
        const next = text[this.i + 1] ?? '';
        if (next === '\n') this.i += 2;
        else if ('$`\\'.includes(next) || (!heredoc && next === '"')) {
          out.add(next);
          this.i += 2;
        } else {
          out.add(c);
          this.i++;
        }
        continue;
      }
      if (c === '$' || c === '`') {
        this.expansionInto(out, true);
        continue;
      }
      out.add(c);
      this.i++;
    }
    return out.done();
  }

  /** A `$…` or backtick expansion at the cursor into `out`, or the `$` or backtick as literal text. */
  private expansionInto(out: PartsBuilder, quoted: boolean): void {
    const part = this.dollar(quoted);
    if (part) out.push(part);
    else {
      out.add(this.text[this.i] ?? '');
      this.i++;
    }
  }

  /** A `$…` or backtick expansion at the cursor, or undefined when `$` is literal. */
  private dollar(quoted: boolean): Part | undefined {
    const text = this.text;
    const i = this.i;
    if (text[i] === '`') {
      const end = closeBacktick(text, i + 1);
      if (end >= text.length) this.notes.unterminated = true;
      this.i = end + 1;
      return { kind: 'cmdsub', script: text.slice(i + 1, end).replace(/\\([`$\\])/g, '$1'), quoted };
    }
    if (text.startsWith('$((', i)) {
      const end = closeParen(text, i + 2);
      this.i = end;
      return { kind: 'arith', expr: text.slice(i + 3, Math.max(i + 3, end - 2)), quoted };
    }
    if (text.startsWith('$(', i)) {
      const end = closeParen(text, i + 2);
      if (end >= text.length && text[end - 1] !== ')') this.notes.unterminated = true;
      this.i = end;
      return { kind: 'cmdsub', script: text.slice(i + 2, end - 1), quoted };
    }
    if (text.startsWith('$[', i)) {
      const end = skipTo(text, i + 2, ']');
      this.i = end + 1;
      return { kind: 'arith', expr: text.slice(i + 2, end), quoted };
    }
    if (text.startsWith('${', i)) {
      const end = closeBrace(text, i + 2);
      if (end >= text.length && text[end - 1] !== '}') this.notes.unterminated = true;
      this.i = end;
      return paramPart(text.slice(i + 2, end - 1), quoted);
    }
    const name = NAME.exec(text.slice(i + 1, i + 200))?.[0];
    if (name) {
      this.i = i + 1 + name.length;
      return { kind: 'param', name, op: '', arg: [], quoted };
    }
    if (SPECIAL_PARAMS.has(text[i + 1] ?? '')) {
      this.i = i + 2;
      return { kind: 'param', name: text[i + 1], op: '', arg: [], quoted };
    }
    return undefined;
  }
}

/** Every token of `text`, and what bash would refuse or read differently. */
export function lex(text: string): { tokens: Token[]; notes: LexNotes } {
  const lexer = new Lexer(text);
  const tokens = lexer.tokens();
  return { tokens, notes: lexer.notes };
}
