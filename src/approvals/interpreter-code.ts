/*
 * What interpreter code does that the approvals care about, turned back into shell text so
 * it is judged like any other command: inline code (`python3 -c`, `node -e`, `perl -e`,
 * `ruby -e`, a here-document fed to python) and execute_code scripts alike. Shell commands
 * handed to the system (`os.system`, `subprocess`, `child_process`, `system`, backticks)
 * become their command; a recursive delete (`shutil.rmtree`, `fs.rmSync(…, {recursive})`,
 * `rmtree`, `FileUtils.rm_rf`) becomes `rm -rf`; a delete `rm`, a rename `mv`, a copy `cp`, a
 * write `: >`, a signal `kill`. Arguments are read for what they are (code-values.ts): the
 * home folder however it is asked for, names bound in the code, `chr()`, base64, joins.
 * What cannot be read fails closed: a shell command built at run time is a command known
 * only at run time, an unknown target of a recursive delete a path known only at run time,
 * and a function named at run time (`getattr(shutil, "rm" + x)`) a finding, blocked when
 * its arguments reach the floor's targets.
 */
import { maskCode, matchClose, splitTopLevel, type CodeLanguage } from './code-text.js';
import { keywordArg, positional, resolveValue, splitArgs, textOf, unknownValue, type Value, type ValueScope } from './code-values.js';
import { UNKNOWN, showWord } from './command.js';
import { isCatastrophicTarget, type PathContext } from './paths.js';
import { shellQuote as quote } from '../shared/shell-quote.js';

export { codeLanguage, type CodeLanguage } from './code-text.js';

/** An endless loop around fork(): a fork bomb in any language. */
export function forkLoop(code: string): boolean {
  if (!/\bfork\b/.test(code)) return false;
  return /\bwhile\s*\(?\s*(1|true|True)\s*\)?|\bfor\s*\(\s*;\s*;\s*\)|\bloop\s*(do|\{)|\buntil\s+(false|0)\b|\b1\s+while\b|\bwhile\s*\(\s*fork/.test(code) || /fork\s*(\(\s*\))?\s*while\b/.test(code);
}

/** A shell command the code hands on (or the shell text of what a call does), and where. */
export interface CodeCommand {
  text: string;
  /** 1-based line of the call in the code. */
  line: number;
  /** The call as written, shortened. */
  call: string;
  /** `terminal`: a hermes_tools.terminal call, judged again with its real text when it is made. */
  via?: 'terminal';
}

/** Something the reading could not resolve. */
export interface CodeFinding {
  level: 'risky' | 'blocked';
  reason: string;
  line: number;
  call: string;
}

export interface CodeReading {
  commands: CodeCommand[];
  findings: CodeFinding[];
}

/** Marks run-time text in the shell text made here: an unset variable, which the assessment reads as unknown. */
const RUNTIME = '"$__hermes_runtime"';
/** Stands for an unknown path in a single delete, rename, copy or write: the known parts still count. */
const PLACEHOLDER = '…';
const MAX_NESTED = 4;
const MAX_CALLS = 5000;

/** A value as one shell word; run-time parts stay unknown. */
function word(value: Value): string {
  const text = textOf(value);
  if (!text.includes(UNKNOWN)) return quote(text);
  return text.split(/(\0+)/).filter((part) => part !== '').map((part) => (part.startsWith(UNKNOWN) ? RUNTIME : quote(part))).join('');
}

/** A value as one word for a single delete, rename, copy or write: unknown parts as a harmless name. */
const placeheld = (value: Value) => quote(textOf(value).replace(/\0+/g, PLACEHOLDER));

/** A value given as a shell command line: text as is (run-time parts unknown), a list as its words. */
function shellText(value: Value): string {
  if ('list' in value) return value.list.map(word).join(' ');
  return value.text.replace(/\0+/g, ` ${RUNTIME} `);
}

/** Parameter names a path, command, pid or destination is passed by (`shutil.rmtree(path=…)`), by position. */
const KEYWORD_PARAMS: readonly (readonly string[])[] = [
  ['path', 'args', 'cmd', 'command', 'src', 'file', 'filename', 'pid', 'name'],
  ['dst', 'sig', 'signal', 'mode'],
];

/** Modules whose functions, named at run time, could delete, move or run anything. */
const DANGEROUS_MODULES = /^(\?|os|posix|nt|shutil|subprocess|pathlib|builtins|__builtins__|io|pty|child_process|fs|fs\/promises|fs-extra|process|FileUtils|File|Dir|Kernel|IO|Open3|Process|POSIX|globals\(\)|vars\(\)|locals\(\))$/;

/** Words that are not function calls though `name(` follows them. */
const KEYWORDS = new Set(['if', 'elif', 'while', 'for', 'return', 'and', 'or', 'not', 'in', 'with', 'switch', 'catch', 'lambda', 'print', 'assert', 'yield', 'await', 'typeof', 'unless', 'until', 'foreach', 'my', 'our', 'local', 'function', 'def', 'sub', 'class', 'new', 'isinstance', 'len', 'range', 'int', 'float', 'dict', 'set', 'super']);

/** Perl and Ruby calls that may be written without parentheses (`system "…"`, `rmtree $ENV{HOME}`). */
const BARE_CALLS = /(?<![\w$:>.@%])(system|exec|spawn|rmtree|remove_tree|unlink|rename|kill|FileUtils\s*\.\s*(?:rm_rf|rm_r|rm|mv|remove_dir|remove_entry))[ \t]+(?=[^\s(=,;)}\]])/g;

interface Context {
  code: string;
  masked: string;
  language: CodeLanguage;
  ctx: PathContext;
  scope: ValueScope;
  aliases: Map<string, string>;
  lines: number[];
  out: CodeReading;
  depth: number;
}

/**
 * Reads interpreter code in `language` for what it hands to the system and what it does to
 * files and processes, each with its line.
 */
export function readCode(code: string, language: CodeLanguage, ctx: PathContext, depth = 0): CodeReading {
  const out: CodeReading = { commands: [], findings: [] };
  const { masked, strings } = maskCode(code, language);
  const lines: number[] = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === '\n') lines.push(i + 1);
  const aliases = new Map<string, string>();
  const bindings = new Map<string, string[]>();
  readBindings(code, masked, language, aliases, bindings);
  const scope: ValueScope = { language, home: ctx.home, bindings, cache: new Map() };
  const c: Context = { code, masked, language, ctx, scope, aliases, lines, out, depth };
  let calls = 0;
  for (const match of masked.matchAll(/(?:(\.|->|::)\s*)?(?<![\w$])([A-Za-z_$][\w$]*)\s*\(/g)) {
    if (++calls > MAX_CALLS) {
      out.findings.push({ level: 'risky', reason: `more than ${MAX_CALLS} calls, too many to check before it runs`, line: 1, call: '' });
      break;
    }
    const name = match[2];
    const before = masked.slice(Math.max(0, match.index - 12), match.index);
    if (KEYWORDS.has(name) && !match[1] || /\b(def|function|sub|fn)\s+$/.test(before)) continue;
    const open = match.index + match[0].length - 1;
    const close = matchClose(masked, open, language);
    if (close < 0) continue;
    const args = splitArgs(code.slice(open + 1, close), language);
    const receiver = match[1] ? receiverBefore(masked, code, match.index) : undefined;
    const start = receiver?.start ?? match.index + (match[1] ? match[1].length : 0);
    const call = { start, end: close + 1 };
    if (name === 'getattr' && !match[1]) {
      const after = /^\s*\(/.exec(masked.slice(close + 1));
      if (after) {
        const callOpen = close + 1 + after[0].length - 1;
        const callClose = matchClose(masked, callOpen, language);
        if (callClose > 0) {
          const [target = '', attr = ''] = positional(args);
          const attrValue = textOf(resolveValue(attr, scope));
          const module = moduleOf(target, c) ?? '?';
          const innerArgs = splitArgs(code.slice(callOpen + 1, callClose), language);
          const span = { start: match.index, end: callClose + 1 };
          if (attrValue.includes(UNKNOWN)) dynamicCall(module, innerArgs, span, c);
          else judgeCall(`${module}.${attrValue}`, attrValue, innerArgs, undefined, span, c);
        }
      }
      continue;
    }
    const module = receiver ? moduleOf(receiver.text, c) : undefined;
    const qualified = receiver ? (module !== undefined ? `${module}.${name}` : undefined) : aliases.get(name) ?? boundFunction(name, c) ?? name;
    judgeCall(qualified, qualified ? qualified.slice(qualified.lastIndexOf('.') + 1) : name, args, module === undefined ? receiver?.text : undefined, call, c);
  }
  // `obj[name](…)`: a member chosen at run time.
  for (const match of masked.matchAll(/\]\s*\(/g)) {
    const close = match.index;
    const open = openBefore(masked, close);
    if (open < 0) continue;
    const receiver = receiverBefore(masked, code, open + 1, true);
    if (!receiver) continue;
    const module = moduleOf(receiver.text, c);
    const callOpen = match.index + match[0].length - 1;
    const callClose = matchClose(masked, callOpen, language);
    if (callClose < 0 || module === undefined) continue;
    const key = textOf(resolveValue(code.slice(open + 1, close), scope));
    const args = splitArgs(code.slice(callOpen + 1, callClose), language);
    const span = { start: receiver.start, end: callClose + 1 };
    if (key.includes(UNKNOWN)) {
      if (DANGEROUS_MODULES.test(module)) dynamicCall(module, args, span, c);
    } else judgeCall(`${module}.${key}`, key, args, undefined, span, c);
  }
  if (language === 'perl' || language === 'ruby') {
    for (const match of masked.matchAll(BARE_CALLS)) {
      const from = match.index + match[0].length;
      const end = statementEnd(masked, from);
      const name = match[1].replace(/\s+/g, '');
      judgeCall(name, name.slice(name.lastIndexOf('.') + 1), splitArgs(code.slice(from, end), language), undefined, { start: match.index, end }, c);
    }
  }
  // Backticks run a shell in Perl, Ruby, PHP (in Python and JavaScript they do not); so do qx{…} and %x(…).
  if (language !== 'python' && language !== 'js' && language !== 'awk') {
    for (const literal of strings) {
      if (literal.quote !== '`') continue;
      const value = resolveValue(code.slice(literal.start, literal.end).replace(/^`|`$/g, '"'), scope);
      add(c, shellText(value), { start: literal.start, end: literal.end });
    }
    for (const match of code.matchAll(/(?<![\w$])(?:qx|%x)\s*([{([/|!])/g)) {
      const open = match.index + match[0].length - 1;
      const closer = { '{': '}', '(': ')', '[': ']' }[match[1]] ?? match[1];
      const end = closer === match[1] ? code.indexOf(closer, open + 1) : matchClose(code, open, language);
      if (end < 0) continue;
      const value = resolveValue(`"${code.slice(open + 1, end).replace(/"/g, '\\"')}"`, scope);
      add(c, shellText(value), { start: match.index, end: end + 1 });
    }
  }
  return out;
}

/** Where a statement written without parentheses ends: `;`, a line break, `or die`, a closing brace. */
function statementEnd(masked: string, from: number): number {
  let depth = 0;
  for (let i = from; i < masked.length; i++) {
    const ch = masked[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      if (depth === 0) return i;
      depth--;
    } else if (depth === 0 && (ch === ';' || ch === '\n' || /^\s+(or|and|if|unless|\|\||&&)\b/.test(masked.slice(i, i + 10)))) return i;
  }
  return masked.length;
}

/** The opening bracket before `close` (a `]`), or -1. */
function openBefore(masked: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (masked[i] === ']' || masked[i] === ')') depth++;
    else if (masked[i] === '[' || masked[i] === '(') {
      depth--;
      if (depth === 0) return masked[i] === '[' ? i : -1;
    }
  }
  return -1;
}

/** The receiver of a method call whose `.` (or `[`) is at `at`: names, dots and bracket groups back from there. */
function receiverBefore(masked: string, code: string, at: number, bracket = false): { text: string; start: number } | undefined {
  let i = at - 1;
  if (bracket) i = at - 2;
  while (i >= 0 && /\s/.test(masked[i])) i--;
  const end = i + 1;
  while (i >= 0) {
    const ch = masked[i];
    if (ch === ')' || ch === ']') {
      let depth = 0;
      for (; i >= 0; i--) {
        if (masked[i] === ')' || masked[i] === ']') depth++;
        else if (masked[i] === '(' || masked[i] === '[') depth--;
        if (depth === 0) break;
      }
      i--;
      continue;
    }
    if (/[\w$.:>-]/.test(ch) && !(ch === '-' && masked[i + 1] !== '>') && !(ch === '>' && masked[i - 1] !== '-')) {
      i--;
      continue;
    }
    if (ch === '"' || ch === "'") {
      // A string literal as the receiver ("x".join(…)): its quotes are kept in the mask.
      const openQuote = masked.lastIndexOf(ch, i - 1);
      if (openQuote < 0) break;
      i = openQuote - 1;
      continue;
    }
    break;
  }
  const start = i + 1;
  return start < end ? { text: code.slice(start, end).trim(), start } : undefined;
}

/** A name bound once to a function of a module (`rm = shutil.rmtree`, `f = getattr(os, "system")`): that function. */
function boundFunction(name: string, c: Context): string | undefined {
  const bound = c.scope.bindings.get(name);
  if (!bound || bound.length !== 1 || bound[0] === UNKNOWN) return undefined;
  const target = moduleOf(bound[0], c);
  return target !== undefined && target.includes('.') ? target : undefined;
}

/** The module a receiver names (`os`, `require("fs")`, `__import__("shutil")`, an alias), or undefined for a value. */
function moduleOf(text: string, c: Context, depth = 0): string | undefined {
  const t = text.trim().replace(/\s+/g, '');
  if (depth > 6 || t === '') return undefined;
  const loader = /^(?:__import__|importlib\.import_module|require|import)\((.*)\)$/s.exec(t);
  if (loader) {
    const name = textOf(resolveValue(splitArgs(loader[1], c.language)[0] ?? '', c.scope));
    return name.includes(UNKNOWN) ? '?' : name.replace(/^node:/, '');
  }
  const attr = /^getattr\((.*)\)$/s.exec(t);
  if (attr) {
    const [target = '', key = ''] = splitTopLevel(attr[1], /,/y, c.language);
    const keyText = textOf(resolveValue(key, c.scope));
    return `${moduleOf(target, c, depth + 1) ?? '?'}.${keyText.includes(UNKNOWN) ? '?' : keyText}`;
  }
  if (/^(globals|vars|locals)\(\)$/.test(t)) return t;
  const modules = /^sys\.modules\[(.*)\]((?:\.[A-Za-z_]\w*)*)$/s.exec(t);
  if (modules) {
    const name = textOf(resolveValue(modules[1], c.scope));
    return (name.includes(UNKNOWN) ? '?' : name) + modules[2];
  }
  const dict = /^(.*)\.__dict__$/s.exec(t);
  if (dict) return moduleOf(dict[1], c, depth + 1);
  const dotted = /^([$]?[A-Za-z_][\w]*)((?:(?:\.|::|->)[A-Za-z_]\w*)*)$/.exec(t);
  if (!dotted) return undefined;
  const [, head, rest] = dotted;
  const alias = c.aliases.get(head);
  if (alias) return alias + rest.replace(/::|->/g, '.');
  const bound = c.scope.bindings.get(head);
  if (bound && bound.length === 1 && bound[0] !== UNKNOWN) {
    const inner = moduleOf(bound[0], c, depth + 1);
    if (inner !== undefined) return inner + rest.replace(/::|->/g, '.');
  }
  if (bound) return undefined;
  return head + rest.replace(/::|->/g, '.');
}

/** Judges one call by what its function does. `valueReceiver` is the receiver's text when it is a value (`Path(x).unlink()`). */
function judgeCall(qualified: string | undefined, name: string, args: string[], valueReceiver: string | undefined, span: { start: number; end: number }, c: Context): void {
  const q = qualified ?? '';
  const module = q.includes('.') ? q.slice(0, q.lastIndexOf('.')) : '';
  const lang = c.language;
  const pos = positional(args);
  const keyword = (i: number) => KEYWORD_PARAMS[i]?.map((key) => keywordArg(args, key)).find((found) => found !== undefined);
  const value = (i: number): Value => {
    const expr = pos[i] ?? (i === pos.length ? keyword(i) : undefined);
    return expr === undefined ? unknownValue : resolveValue(expr, c.scope);
  };
  const receiverValue = () => (valueReceiver !== undefined ? resolveValue(valueReceiver, c.scope) : module !== '' ? resolveValue(module, c.scope) : unknownValue);
  // Code run as code: Python's exec/eval, JavaScript's eval/Function.
  if ((lang === 'python' && /^((__)?builtins(__)?\.)?(exec|eval)$/.test(q)) || (lang === 'js' && /^(eval|Function|vm\.runIn\w+Context|vm\.runInThisContext)$/.test(q))) {
    const code = value(pos.length - 1 >= 0 && q.includes('Function') ? pos.length - 1 : 0);
    const text = textOf(code);
    if (pos.length === 0) return;
    if (text.includes(UNKNOWN) || c.depth >= MAX_NESTED) finding(c, 'risky', `runs code built at run time (${name})`, span);
    else {
      // What the code runs is reported at the line of the call that runs it.
      const line = lineOf(c, span.start);
      const inner = readCode(text, lang, c.ctx, c.depth + 1);
      c.out.commands.push(...inner.commands.map((one) => ({ ...one, line })));
      c.out.findings.push(...inner.findings.map((one) => ({ ...one, line })));
    }
    return;
  }
  // Archives unpacked into a folder (`tarfile.open(x).extractall(path)`, `shutil.unpack_archive(x, path)`).
  if (name === 'extractall' || q === 'shutil.unpack_archive') {
    const folder = name === 'extractall' ? value(0) : value(1);
    if (!textOf(folder).includes(UNKNOWN)) add(c, `tar -x -f archive -C ${word(folder)}`, span);
    return;
  }
  // hermes_tools.terminal("…") in a script: a floor command there refuses the script before it starts.
  if (q === 'hermes_tools.terminal') {
    add(c, shellText(value(0)), span, 'terminal');
    return;
  }
  if (qualified === undefined) {
    // A method on a value: `Path(x).unlink()`, `(home / ".ssh").rename(y)`, `p.write_text(…)`.
    methodOnValue(name, args, receiverValue(), span, c);
    return;
  }
  // Python's subprocess and os.exec*/spawn*, JavaScript's child_process, Ruby's and Perl's system.
  if (/^(subprocess\.)?(run|call|check_call|check_output|Popen)$/.test(q) && (module === 'subprocess' || (lang === 'python' && module === '' && c.aliases.has(name)))) {
    add(c, shellText(value(0)), span);
    return;
  }
  if (lang === 'python' && /^(os|posix)\.(exec|spawn)(l|lp|le|lpe|v|vp|ve|vpe)$/.test(q)) {
    const spawn = name.startsWith('spawn') ? 1 : 0;
    const program = value(spawn);
    const rest = /^(exec|spawn)v/.test(name) ? value(spawn + 1) : { list: pos.slice(spawn + 1, name.includes('e') ? -1 : undefined).map((_p, i) => value(spawn + 1 + i)) };
    const words = 'list' in rest ? rest.list.slice(1) : [unknownValue];
    add(c, [word(program), ...words.map(word)].join(' '), span);
    return;
  }
  if (/^(os|posix)\.posix_spawnp?$/.test(q)) {
    const list = value(1);
    add(c, 'list' in list ? [word(value(0)), ...list.list.slice(1).map(word)].join(' ') : `${word(value(0))} ${RUNTIME}`, span);
    return;
  }
  if (q === 'pty.spawn') {
    add(c, shellText(value(0)), span);
    return;
  }
  if (lang === 'js' && /^(child_process\.)?(execFile|execFileSync|spawn|spawnSync|fork)$/.test(q) && (module === 'child_process' || module === '')) {
    const list = value(1);
    const shell = /shell\s*:\s*(true|['"])/.test(args.join(','));
    const words = [value(0), ...('list' in list ? list.list : pos.length > 1 && !/^\{/.test(pos[1]) ? [unknownValue] : [])];
    add(c, shell ? words.map((w) => shellText(w)).join(' ') : words.map(word).join(' '), span);
    return;
  }
  const shellNames = /^(system|popen|getoutput|getstatusoutput|shell_exec|passthru|proc_open|execSync|capture2|capture2e|capture3|popen2|popen2e|popen3|pipeline)$/;
  const shellModule = module === '' || /^(os|commands|subprocess|child_process|Kernel|IO|Open3|posix|POSIX)$/.test(module);
  if ((shellNames.test(name) || (name === 'exec' && lang !== 'python') || (name === 'spawn' && lang === 'ruby')) && shellModule) {
    // Several arguments are an argv (Perl's and Ruby's system LIST); one is a shell command line.
    const words = pos.filter((p) => !/^\{/.test(p) || lang !== 'ruby');
    if (words.length > 1 && (lang === 'perl' || lang === 'ruby')) add(c, words.map((_w, i) => word(value(pos.indexOf(words[i])))).join(' '), span);
    else add(c, shellText(value(0)), span);
    return;
  }
  // Recursive deletes.
  const recursiveOption = /recursive\s*[:=]>?\s*(true|1|True)/.test(args.join(','));
  if (/^(rmtree|remove_tree|rm_r|rm_rf|rmtree|remove_dir|remove_entry|remove_entry_secure|rimraf|remove_dir_all|removeSync|emptyDirSync|emptyDir)$/.test(name) && !(name === 'remove_dir' && module === '' && lang !== 'ruby')
    || q === 'rimraf.sync' || (/^(rmSync|rm|rmdirSync|rmdir)$/.test(name) && /^(fs|fs\.promises|fs\/promises|fsPromises|fs-extra)$/.test(module) && recursiveOption)
    || (/^(rm|rmdir)$/.test(name) && lang === 'js' && module === '' && recursiveOption)) {
    const targets = name === 'rmtree' || name === 'remove_tree' || /^rm_r/.test(name) ? pos.filter((p) => !/^\{|=>|^[\w]+:/.test(p)) : pos.slice(0, 1);
    const named = keyword(0);
    if (targets.length === 0 && named !== undefined) targets.push(named);
    const words = targets.map((_t, i) => resolveValue(targets[i], c.scope));
    add(c, `rm -rf -- ${(words.length > 0 ? words : [unknownValue]).flatMap((v) => ('list' in v ? v.list : [v])).map(word).join(' ')}`, span);
    return;
  }
  // Single deletes.
  if ((/^(os|posix|fs|fs\.promises|fsPromises|File|FileUtils|\s*)$/.test(module) || module === '') && /^(remove|unlink|rmdir|unlinkSync|rmdirSync|rmSync|rm|delete|removedirs)$/.test(name)
    && !(module === '' && /^(remove|delete|rm)$/.test(name) && lang !== 'perl' && lang !== 'php') && !(module === 'File' && name === 'rm')) {
    for (let i = 0; i < Math.max(1, name === 'unlink' && lang === 'perl' ? pos.length : 1); i++) add(c, `rm -- ${placeheld(value(i))}`, span);
    return;
  }
  // Renames and moves.
  if ((/^(os|posix)\.(rename|replace|renames)$/.test(q) || q === 'shutil.move' || /^(fs|fs\.promises|fsPromises)\.(renameSync|rename)$/.test(q) || /^(File\.rename|FileUtils\.(mv|move))$/.test(q) || (q === 'rename' && (lang === 'perl' || lang === 'php' || (lang === 'python' && c.aliases.has('rename')))) || (/^renameSync$/.test(q)))) {
    add(c, `mv -- ${placeheld(value(0))} ${placeheld(value(1))}`, span);
    return;
  }
  // Copies: judged by their destination.
  if (/^shutil\.(copy|copy2|copyfile|copytree)$/.test(q) || /^(fs\.)?(copyFileSync|cpSync|copyFile|cp)$/.test(q) && (module === 'fs' || lang === 'js') || /^FileUtils\.(cp|cp_r|copy|install)$/.test(q)) {
    add(c, `cp -r -- ${placeheld(value(0))} ${placeheld(value(1))}`, span);
    return;
  }
  // Writes.
  if (isWrite(q, name, module, args, pos, c, value)) return judgeWrite(q, name, pos, c, value, span);
  // Signals.
  if (/^(os|posix)\.(kill|killpg)$/.test(q) || q === 'process.kill' || q === 'Process.kill' || (q === 'kill' && (lang === 'perl' || (lang === 'python' && c.aliases.has('kill')))) || q === 'posix_kill') {
    const signalFirst = q === 'Process.kill' || lang === 'perl';
    const pids = signalFirst ? pos.slice(1) : pos.slice(0, 1);
    const signal = signalName(signalFirst ? pos[0] : pos[1], c);
    for (const pid of pids) {
      const target = pidWord(pid, c);
      if (target !== undefined) add(c, `kill -s ${signal} -- ${name === 'killpg' ? `-${target.replace(/^-/, '')}` : target}`, span);
    }
    return;
  }
  if (/^(os|posix)\.(chmod|lchmod)$/.test(q) || q === 'fs.chmodSync' || q === 'File.chmod') {
    const [mode, path] = q === 'File.chmod' ? [pos[0], value(1)] : [pos[1], value(0)];
    const octal = /^0?[oO]?([0-7]{3,4})$/.exec(mode?.trim() ?? '');
    if (octal) add(c, `chmod ${octal[1]} -- ${placeheld(path)}`, span);
  }
}

/** A method on a value (`Path(x).unlink()`, `.rmtree()`, `.rename(y)`, `.write_text(…)`, `.open("w")`). */
function methodOnValue(name: string, args: string[], receiver: Value, span: { start: number; end: number }, c: Context): void {
  if (c.language !== 'python' && c.language !== 'ruby') return;
  const pos = positional(args);
  const known = !textOf(receiver).includes(UNKNOWN) || textOf(receiver).replace(/\0+/g, '') !== '';
  if (!known) return;
  if (name === 'rmtree' || name === 'rm_rf') add(c, `rm -rf -- ${word(receiver)}`, span);
  else if (name === 'unlink' || name === 'rmdir') add(c, `rm -- ${placeheld(receiver)}`, span);
  else if (name === 'rename' && pos.length === 1) add(c, `mv -- ${placeheld(receiver)} ${placeheld(resolveValue(pos[0], c.scope))}`, span);
  else if (name === 'write_text' || name === 'write_bytes' || name === 'symlink_to' || name === 'hardlink_to') add(c, `: > ${placeheld(receiver)}`, span);
  else if (name === 'open' && /[wax+]/.test(textOf(resolveValue(pos[0] ?? keywordArg(args, 'mode') ?? "'r'", c.scope)))) add(c, `: > ${placeheld(receiver)}`, span);
  else if (name === 'chmod' && /^0?[oO]?[0-7]{3,4}$/.test(pos[0] ?? '')) add(c, `chmod ${(pos[0] ?? '').replace(/^0?[oO]?/, '')} -- ${placeheld(receiver)}`, span);
}

function isWrite(q: string, name: string, module: string, args: string[], pos: string[], c: Context, value: (i: number) => Value): boolean {
  if (/^(open|io\.open|codecs\.open|builtins\.open)$/.test(q) && c.language === 'python') return /[wax+]/.test(textOf(resolveValue(pos[1] ?? keywordArg(args, 'mode') ?? "'r'", c.scope)));
  if (q === 'open' && c.language === 'perl') return pos.length >= 2 && (/^\s*(\+?[<>]|>>)/.test(textOf(value(1))) || pos.length === 2 && /^\s*(>|\+<)/.test(textOf(value(1))));
  if (q === 'os.open') return /O_(WRONLY|RDWR|CREAT|TRUNC|APPEND)/.test(args.join(','));
  if (/^(writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|outputFileSync|outputFile)$/.test(name) && (/^(fs|fs\.promises|fsPromises|fs\/promises|fs-extra)$/.test(module) || module === '')) return true;
  if (name === 'openSync' && module === 'fs') return /[wa+]/.test(textOf(value(1)));
  if (/^(File|IO)\.(write|binwrite)$/.test(q) || q === 'file_put_contents') return true;
  if (/^(File|IO)\.open$/.test(q) || q === 'fopen') return /[wa+]/.test(textOf(value(1)));
  return false;
}

function judgeWrite(q: string, name: string, pos: string[], c: Context, value: (i: number) => Value, span: { start: number; end: number }): void {
  let target = value(0);
  if (q === 'open' && c.language === 'perl') {
    const mode = textOf(value(1));
    target = pos.length >= 3 ? value(2) : { text: mode.replace(/^\s*(\+?[<>]+)\s*/, '') };
  }
  add(c, `: > ${placeheld(target)}`, span);
  void name;
}

/** A signal argument as `kill -s` takes it. */
function signalName(arg: string | undefined, c: Context): string {
  if (arg === undefined) return 'TERM';
  const text = textOf(resolveValue(arg, c.scope));
  if (/^-?\d+$/.test(text)) return text.replace(/^-/, '');
  const named = /(?:^|\.|['"])(?:SIG)?([A-Z]{2,}\d*)['"]?$/.exec(arg.trim());
  return named ? named[1] : 'TERM';
}

/** A pid argument as a `kill` word: a number, the parent (`$PPID`), itself (`$$`); undefined when unknown. */
function pidWord(arg: string, c: Context): string | undefined {
  const t = arg.replace(/\s+/g, '');
  if (/^(os\.)?getppid\(\)$|^process\.ppid$|^Process\.ppid$|^getppid(\(\))?$|^posix_getppid\(\)$/.test(t)) return '$PPID';
  if (/^(os\.)?getpid\(\)$|^process\.pid$|^Process\.pid$|^\$\$$/.test(t)) return '$$';
  const text = textOf(resolveValue(arg, c.scope));
  return /^-?\d+$/.test(text) ? text : undefined;
}

/** A call whose function is named at run time: blocked when its arguments reach the floor's targets, else asked. */
function dynamicCall(module: string, args: string[], span: { start: number; end: number }, c: Context): void {
  const values = positional(args).map((arg) => resolveValue(arg, c.scope)).flatMap((v) => ('list' in v ? v.list : [v]));
  const reached = values.map(textOf).find((text) => isCatastrophicTarget(text, c.ctx) || text.split(/\s+/).some((w) => isCatastrophicTarget(w, c.ctx)));
  const what = `calls a function of ${module === '?' ? 'a module named at run time' : module} whose name is built at run time`;
  if (reached !== undefined) finding(c, 'blocked', `${what}, aimed at ${showWord(reached === c.ctx.home ? '~' : reached)} (it could delete or move it)`, span);
  else finding(c, 'risky', what, span);
}

function lineOf(c: Context, index: number): number {
  let low = 0;
  let high = c.lines.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (c.lines[mid] <= index) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

const shorten = (text: string) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 77)}…` : one;
};

function add(c: Context, text: string, span: { start: number; end: number }, via?: 'terminal'): void {
  if (text.trim() === '') return;
  c.out.commands.push({ text, line: lineOf(c, span.start), call: shorten(c.code.slice(span.start, span.end)), ...(via ? { via } : {}) });
}

function finding(c: Context, level: 'risky' | 'blocked', reason: string, span: { start: number; end: number }): void {
  c.out.findings.push({ level, reason, line: lineOf(c, span.start), call: shorten(c.code.slice(span.start, span.end)) });
}

/** Names bound by imports (aliases) and plain assignments in the code; loop variables and unpacking as unknown. */
function readBindings(code: string, masked: string, language: CodeLanguage, aliases: Map<string, string>, bindings: Map<string, string[]>): void {
  const bind = (name: string, expr: string) => {
    const list = bindings.get(name) ?? [];
    list.push(expr);
    bindings.set(name, list);
  };
  const exprAt = (from: number) => code.slice(from, statementEnd(masked, from)).trim();
  if (language === 'python') {
    for (const m of masked.matchAll(/^[ \t]*import[ \t]+([\w. \t,]+?)[ \t]*$/gm)) {
      for (const part of m[1].split(',')) {
        const as = /^\s*([\w.]+)\s+as\s+(\w+)\s*$/.exec(part);
        if (as) aliases.set(as[2], as[1]);
      }
    }
    for (const m of masked.matchAll(/^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(?:\(([\w \t,\n]+)\)|([\w \t,]+))/gm)) {
      for (const part of (m[2] ?? m[3] ?? '').split(',')) {
        const as = /^\s*(\w+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
        if (as) aliases.set(as[2] ?? as[1], `${m[1]}.${as[1]}`);
      }
    }
  }
  if (language === 'js') {
    for (const m of masked.matchAll(/\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\s*\(\s*(['"])/g)) {
      const module = /^['"]([^'"]*)['"]/.exec(code.slice(m.index + m[0].length - 1))?.[1]?.replace(/^node:/, '');
      for (const part of m[1].split(',')) {
        const as = /^\s*(\w+)\s*(?::\s*(\w+))?\s*$/.exec(part);
        if (as && module) aliases.set(as[2] ?? as[1], `${module}.${as[1]}`);
      }
    }
    for (const m of masked.matchAll(/\bimport\s+(?:\*\s+as\s+(\w+)|\{([^}]*)\}|(\w+))\s+from\s+(['"])/g)) {
      const module = /^['"]([^'"]*)['"]/.exec(code.slice(m.index + m[0].length - 1))?.[1]?.replace(/^node:/, '');
      if (!module) continue;
      if (m[1] ?? m[3]) aliases.set(m[1] ?? m[3], module);
      for (const part of (m[2] ?? '').split(',')) {
        const as = /^\s*(\w+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
        if (as) aliases.set(as[2] ?? as[1], `${module}.${as[1]}`);
      }
    }
  }
  const assignment =
    language === 'perl' || language === 'php'
      ? /(?:\b(?:my|our|local)\s+)?([$@%][A-Za-z_]\w*)\s*=(?![=~>])/g
      : language === 'js'
        ? /(?:\b(?:const|let|var)\s+)?(?<![\w$.])([A-Za-z_$][\w$]*)\s*=(?![=>])/g
        : /(?:^|;)[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n;]+)?=(?!=)/gm;
  for (const m of masked.matchAll(assignment)) {
    if (/[!<>+\-*/%|&^]$/.test(masked.slice(0, m.index + m[0].length - 1))) continue;
    bind(m[1], exprAt(m.index + m[0].length));
  }
  // Loop variables, tuple targets, `with … as x`, parameters reassigned: unknown, or the bound expression.
  for (const m of masked.matchAll(/\bfor\s*\(?\s*(?:(?:const|let|var|my)\s+)?([$@]?\w+(?:\s*,\s*[$@]?\w+)*)\s+(?:in|of)\b/g)) for (const name of m[1].split(',')) bind(name.trim(), UNKNOWN);
  for (const m of masked.matchAll(/\bforeach\s+(?:my\s+)?(\$\w+)/g)) bind(m[1], UNKNOWN);
  for (const m of masked.matchAll(/^[ \t]*(\w+(?:[ \t]*,[ \t]*\w+)+)[ \t]*=(?!=)/gm)) for (const name of m[1].split(',')) bind(name.trim(), UNKNOWN);
  for (const m of masked.matchAll(/\bmy\s*\(([^)]*)\)\s*=/g)) for (const name of m[1].split(',')) bind(name.trim(), UNKNOWN);
  for (const m of masked.matchAll(/\bwith\s+([\s\S]+?)\s+as\s+(\w+)\s*[:,)]/g)) bind(m[2], code.slice(m.index + m[0].indexOf(m[1]), m.index + m[0].indexOf(m[1]) + m[1].length));
  for (const m of masked.matchAll(/^[ \t]*(\w+)[ \t]*(\+|-|\*|\/\/?|%|\|)=/gm)) bind(m[1], UNKNOWN);
  for (const m of masked.matchAll(/\bdef\s+\w+\s*\(([^)]*)\)/g)) for (const name of m[1].split(',')) bind(name.trim().replace(/[:=].*$/s, '').replace(/^\*+/, ''), UNKNOWN);
}
