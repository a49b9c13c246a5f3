/*
 * What an argument of a call in interpreter code is before the code runs, as far as it can
 * be told: string literals (f-strings and templates too), concatenation, `chr()`, base64
 * decoded, path joins, the home folder however it is asked for (`os.environ["HOME"]`,
 * `Path.home()`, `os.homedir()`, `$ENV{HOME}`, `Dir.home`…), lists, and names bound once by
 * a plain assignment. Whatever else is UNKNOWN, never taken as harmless.
 */
import { UNKNOWN, matchClose, readString, splitTopLevel, stringValue, type CodeLanguage } from './code-text.js';

/** A value: text (UNKNOWN marks run-time parts) or a list of values. */
export type Value = { text: string } | { list: Value[] };

export const unknownValue: Value = { text: UNKNOWN };

/** What a value reader knows: the language, the home folder, and the names the code binds. */
export interface ValueScope {
  language: CodeLanguage;
  home: string;
  /** Name → the expressions assigned to it (UNKNOWN when bound by a loop, a parameter or unpacking). */
  bindings: ReadonlyMap<string, readonly string[]>;
  /** Names already read (a name bound a hundred times is read once; `x = x + "a"` is unknown). */
  cache?: Map<string, Value>;
}

/** A temporary folder made at run time: inside /tmp, never /tmp itself. */
const TEMP_FOLDER = '/tmp/hermes-temporary-folder';
const MAX_DEPTH = 12;

/** Expressions that give the home folder. */
const HOME = new RegExp(
  [
    String.raw`(?:os\.)?environ(?:\.get)?\s*[[(]\s*['"](?:HOME|USERPROFILE)['"]\s*(?:,[^)]*)?[\])]`,
    String.raw`(?:os\.|posix\.)?getenv\s*\(\s*['"](?:HOME|USERPROFILE)['"]\s*(?:,[^)]*)?\)`,
    String.raw`(?:pathlib\.)?(?:Pure)?(?:Posix)?Path\s*\.\s*home\s*\(\s*\)`,
    String.raw`(?:[\w$.]+\.|require\s*\(\s*['"](?:node:)?os['"]\s*\)\s*\.)?homedir\s*\(\s*\)`,
    String.raw`process\.env(?:\.HOME|\s*\[\s*['"]HOME['"]\s*\])`,
    String.raw`Deno\.env\.get\s*\(\s*['"]HOME['"]\s*\)`,
    String.raw`\$ENV\s*\{\s*['"]?HOME['"]?\s*\}`,
    String.raw`ENV(?:\.fetch\s*\(\s*|\s*\[\s*)['"]HOME['"]\s*[\])]`,
    String.raw`Dir\.home(?:\s*\(\s*\))?`,
    String.raw`File::HomeDir->my_home`,
    String.raw`\$_SERVER\s*\[\s*['"]HOME['"]\s*\]`,
  ].join('|'),
);
const HOME_EXPR = new RegExp(`^(?:${HOME.source})$`);

const quoteChars = /^[rRbBuUfF]{0,2}["'`]/;

/** Reads `expr` into a value. */
export function resolveValue(expr: string, scope: ValueScope, depth = 0): Value {
  if (depth > MAX_DEPTH) return unknownValue;
  const e = expr.trim().replace(/^\*+/, '');
  if (e === '') return unknownValue;
  const { language } = scope;
  const next = (part: string) => resolveValue(part, scope, depth + 1);
  // Wrapping brackets: `(a)` is a, `(a, b)` and `[a, b]` are lists (Perl's `(…)` too).
  if ((e.startsWith('(') || e.startsWith('[')) && matchClose(e, 0, language) === e.length - 1) {
    const inner = e.slice(1, -1);
    const items = splitTopLevel(inner, /,/y, language).filter((item, i, all) => !(item.trim() === '' && i === all.length - 1));
    if (e.startsWith('[') || items.length > 1 || /,\s*$/.test(inner)) return { list: items.map(next) };
    return next(inner);
  }
  // `a if c else b` and `c ? a : b` could be either.
  if (/\bif\b.*\belse\b/.test(e) && language === 'python') return unknownValue;
  // Concatenation: `+` in Python, JavaScript and Ruby; `.` in Perl and PHP.
  const plus = splitTopLevel(e, language === 'perl' || language === 'php' ? /\s*\.(?![\d=])\s*/y : /\s*\+(?![+=])\s*/y, language);
  if (plus.length > 1 && plus[0].trim() !== '') return concat(plus.map(next));
  // pathlib's `/` (Path.home() / ".ssh").
  if (language === 'python') {
    const slash = splitTopLevel(e, /\s*\/(?![/=])\s*/y, language);
    if (slash.length > 1 && slash[0].trim() !== '') return slash.map(next).reduce((a, b) => join(a, b));
    const percent = splitTopLevel(e, /\s*%(?!=)\s*/y, language);
    if (percent.length === 2 && quoteChars.test(percent[0].trim())) {
      const right = next(percent[1]);
      const fill = 'list' in right ? right.list.map(textOf) : [textOf(right)];
      let at = 0;
      return mapText(next(percent[0]), (t) => t.replace(/%[-#0 +]*\d*(\.\d+)?[sdifrxXoceEgGa]/g, () => fill[at++] ?? UNKNOWN));
    }
  }
  if (HOME_EXPR.test(e)) return { text: scope.home };
  // A literal, maybe followed by methods (`"x".format(y)`, `"…".join(list)`).
  const literal = quoteChars.test(e) ? readString(e, 0, language) : undefined;
  if (literal) {
    let text = stringValue(literal, language, (inner) => textOf(next(inner)));
    let rest = e.slice(literal.end);
    // Python joins adjacent literals: 'r' 'm' is 'rm'.
    while (language === 'python' && quoteChars.test(rest.trimStart())) {
      const start = rest.length - rest.trimStart().length;
      const following = readString(rest, start, language);
      if (!following) break;
      text += stringValue(following, language, (inner) => textOf(next(inner)));
      rest = rest.slice(following.end);
    }
    return methods({ text }, rest, scope, depth);
  }
  if (/^-?\d+$/.test(e)) return { text: String(Number(e)) };
  if (/^0[oO]?[0-7]+$/.test(e)) return { text: e };
  // A call (`os.path.join(a, b)`), maybe followed by methods (`Path(x).expanduser()`).
  const call = /^([A-Za-z_$][\w$]*(?:\s*(?:\.|::|->)\s*[A-Za-z_$][\w$]*)*)\s*\(/.exec(e);
  if (call) {
    const open = call[0].length - 1;
    const close = matchClose(e, open, language);
    if (close < 0) return unknownValue;
    const args = splitArgs(e.slice(open + 1, close), language);
    const value = callValue(call[1].replace(/\s+/g, ''), args, scope, depth);
    return value === undefined ? unknownValue : methods(value, e.slice(close + 1), scope, depth);
  }
  // A name, maybe followed by methods or attributes.
  const name = /^[$@%]?[A-Za-z_][\w]*/.exec(e);
  if (name) {
    const bound = bindingValue(name[0], scope, depth);
    const rest = e.slice(name[0].length);
    if (/^\s*\[/.test(rest)) return unknownValue;
    return bound === undefined ? unknownValue : methods(bound, rest, scope, depth);
  }
  // `%w[rm -rf x]` in Ruby.
  const words = /^%w[[({](.*)[\])}]$/s.exec(e);
  if (words && language === 'ruby') return { list: words[1].trim().split(/\s+/).map((text) => ({ text })) };
  return unknownValue;
}

/** The arguments of a call, keyword arguments as `name=value` left in place. */
export function splitArgs(text: string, language: CodeLanguage): string[] {
  if (text.trim() === '') return [];
  return splitTopLevel(text, /,/y, language).map((arg) => arg.trim()).filter((arg) => arg !== '');
}

/** The value of a keyword argument (`shell=True`, `mode="w"`, `{recursive: true}`), when given. */
export function keywordArg(args: readonly string[], name: string): string | undefined {
  for (const arg of args) {
    const match = new RegExp(`^${name}\\s*[=:]\\s*([\\s\\S]+)$`).exec(arg);
    if (match) return match[1];
  }
  return undefined;
}

/** The positional arguments (not `name=value`). */
export const positional = (args: readonly string[]): string[] => args.filter((arg) => !/^[A-Za-z_]\w*\s*=(?!=)/.test(arg) && !arg.startsWith('**'));

/** The text of a value (a list as its words joined by spaces); UNKNOWN where unknown. */
export function textOf(value: Value): string {
  return 'text' in value ? value.text : value.list.map(textOf).join(' ');
}

const mapText = (value: Value, map: (text: string) => string): Value => ('text' in value ? { text: map(value.text) } : unknownValue);

function concat(values: Value[]): Value {
  if (values.every((v) => 'list' in v)) return { list: values.flatMap((v) => ('list' in v ? v.list : [])) };
  if (values.some((v) => 'list' in v)) return unknownValue;
  return { text: values.map(textOf).join('') };
}

/** Joins path parts as os.path.join does: a later absolute part starts again. */
function join(a: Value, b: Value): Value {
  const left = textOf(a);
  const right = textOf(b);
  if (right.startsWith('/')) return { text: right };
  if (left === '') return { text: right };
  return { text: left.endsWith('/') ? left + right : `${left}/${right}` };
}

/** `~` and `~/x` as expanduser reads them. */
const expandUser = (value: Value, home: string): Value => mapText(value, (t) => (/^~(?=\/|$)/.test(t) ? home + t.slice(1) : t));

function bindingValue(name: string, scope: ValueScope, depth: number): Value | undefined {
  const bound = scope.bindings.get(name);
  if (!bound || bound.length === 0) return undefined;
  const cached = scope.cache?.get(name);
  if (cached) return cached;
  const exprs = [...new Set(bound)];
  // Bound to several different things, or to itself: whichever it is at the call is not known here.
  scope.cache?.set(name, unknownValue);
  if (exprs.includes(UNKNOWN) || exprs.length > 4) return unknownValue;
  const values = exprs.map((expr) => resolveValue(expr, scope, depth + 1));
  const texts = new Set(values.map((v) => JSON.stringify(v)));
  const value = texts.size === 1 ? values[0] : unknownValue;
  scope.cache?.set(name, value);
  return value;
}

/** Calls whose result is known from their arguments. */
function callValue(callee: string, args: string[], scope: ValueScope, depth: number): Value | undefined {
  const arg = (i: number) => (positional(args)[i] === undefined ? undefined : resolveValue(positional(args)[i], scope, depth + 1));
  const all = () => positional(args).map((a) => resolveValue(a, scope, depth + 1));
  const name = callee.slice(Math.max(callee.lastIndexOf('.'), callee.lastIndexOf(':')) + 1);
  if (/^(os\.path\.|posixpath\.|path\.|File\.)?join$/.test(callee) && !/^["']/.test(callee) || /^(path\.resolve|path\.posix\.join|File\.join)$/.test(callee)) {
    const parts = all();
    return parts.length === 0 ? undefined : parts.reduce((a, b) => join(a, b));
  }
  if (name === 'expanduser' || callee === 'File.expand_path') {
    const value = arg(0);
    return value && expandUser(value, scope.home);
  }
  if (/^((pathlib\.)?(Pure)?(Posix)?Path|str|String|os\.fspath|os\.path\.(abspath|realpath|normpath)|path\.normalize|Pathname\.new|File\.absolute_path|realpath)$/.test(callee)) {
    const parts = all();
    return parts.length === 0 ? { text: '.' } : parts.reduce((a, b) => join(a, b));
  }
  if (/^(chr|String\.fromCharCode|String\.fromCodePoint)$/.test(callee)) {
    const codes = all().map(textOf);
    return codes.every((c) => /^\d+$/.test(c)) ? { text: codes.map((c) => String.fromCodePoint(Number(c))).join('') } : unknownValue;
  }
  if (/^(base64\.(b64decode|standard_b64decode|urlsafe_b64decode)|atob|Base64\.decode64|MIME::Base64::decode_base64|decode_base64|base64_decode)$/.test(callee)) {
    const value = arg(0);
    const text = value && textOf(value);
    return text && !text.includes(UNKNOWN) ? { text: Buffer.from(text, 'base64').toString('utf8') } : unknownValue;
  }
  if (callee === 'Buffer.from' && /base64/.test(args[1] ?? '')) {
    const value = arg(0);
    const text = value && textOf(value);
    return text && !text.includes(UNKNOWN) ? { text: Buffer.from(text, 'base64').toString('utf8') } : unknownValue;
  }
  if (/^(tempfile\.)?(mkdtemp|gettempdir|TemporaryDirectory|mkstemp|NamedTemporaryFile)$/.test(callee) || /^(os\.)?tmpdir$/.test(callee) || /^(fs\.)?mkdtempSync$/.test(callee) || callee === 'Dir.mktmpdir') {
    return { text: TEMP_FOLDER };
  }
  if (/^(os\.getcwd|process\.cwd|Dir\.pwd|getcwd)$/.test(callee)) return { text: '.' };
  if (/^(list|tuple|shlex\.split)$/.test(callee)) {
    const value = arg(0);
    if (!value) return { list: [] };
    return callee === 'shlex.split' && 'text' in value && !value.text.includes(UNKNOWN) ? { list: value.text.trim().split(/\s+/).map((text) => ({ text })) } : value;
  }
  return undefined;
}

/** Methods and attributes after a value: `.expanduser()`, `.format(…)`, `.join(list)`, `.parent`, `.name`. */
function methods(value: Value, rest: string, scope: ValueScope, depth: number): Value {
  let current = value;
  let tail = rest.trim();
  while (tail !== '') {
    const method = /^\.\s*([A-Za-z_]\w*)\s*/.exec(tail);
    if (!method) return tail.startsWith(')') ? current : unknownValue;
    const name = method[1];
    tail = tail.slice(method[0].length);
    let args: string[] = [];
    if (tail.startsWith('(')) {
      const close = matchClose(tail, 0, scope.language);
      if (close < 0) return unknownValue;
      args = splitArgs(tail.slice(1, close), scope.language);
      tail = tail.slice(close + 1).trim();
    }
    const arg = (i: number) => (args[i] === undefined ? unknownValue : resolveValue(args[i], scope, depth + 1));
    if (name === 'expanduser') current = expandUser(current, scope.home);
    else if (name === 'name') current = textOf(current) === TEMP_FOLDER ? current : unknownValue;
    else if (/^(resolve|absolute|as_posix|strip|rstrip|lstrip|decode|encode|toString|to_s|__str__|path|chomp|trim)$/.test(name)) current = { ...current };
    else if (name === 'joinpath') current = args.map((_a, i) => arg(i)).reduce((a, b) => join(a, b), current);
    else if (name === 'join') {
      const list = arg(0);
      current = 'list' in list && 'text' in current ? { text: list.list.map(textOf).join(current.text) } : unknownValue;
    } else if (name === 'parent') current = mapText(current, (t) => (t.includes('/') ? t.slice(0, t.lastIndexOf('/')) || '/' : '.'));
    else if (name === 'format') {
      let at = 0;
      const fill = (key: string) => {
        const index = key === '' ? at++ : /^\d+$/.test(key) ? Number(key) : -1;
        return index >= 0 && args[index] !== undefined ? textOf(arg(index)) : UNKNOWN;
      };
      current = mapText(current, (t) => t.replace(/\{([^{}:!]*)[^{}]*\}/g, (_all, key: string) => fill(key)));
    }
    else if (name === 'split' && args.length === 0) current = 'text' in current && !current.text.includes(UNKNOWN) ? { list: current.text.trim().split(/\s+/).map((text) => ({ text })) } : unknownValue;
    else return unknownValue;
  }
  return current;
}

/** True when some of the code asks for the home folder (for a finding's wording). */
export const asksForHome = (code: string): boolean => HOME.test(code);
