/*
 * A reader of bash command lines that judges what a command does as bash would run it:
 * lists, pipelines, compound commands, here-documents, assignments and expansions are
 * followed in order (shell-expand.ts), carriers are looked through (carriers.ts), and
 * every script a command hands to a shell (`bash -c`, `eval`, `su -c`, a here-string fed
 * to `sh`, a decoded pipe) is read in turn. It fails closed: what it cannot resolve is
 * marked UNKNOWN and reported as a finding, never taken as harmless.
 */
import { posix } from 'node:path';
import { lex, lexString, type HereDoc, type Part, type WordToken } from './shell-lexer.js';
import { MAX_BRACE_WORDS, braceExpand } from './shell-braces.js';
import { Expander, MAX_TEXT, capText, lookup, type Field, type Scope, type SubstitutionResult, type VarValue } from './shell-expand.js';
import { baseName, fileProgram, unwrap, type NestedScript, type WrittenFile } from './carriers.js';
import { UNKNOWN, isUnknown, showWord, type Finding, type Redirect, type SimpleCommand, type Stdin } from './command.js';
import { commandOutput } from './outputs.js';
import { extendReadings } from './readings.js';
import { codeLanguage, readCode } from './interpreter-code.js';
import { expandPath, type PathContext } from './paths.js';
import { writeTargets } from './write-targets.js';
import { DOWNLOADERS } from './program-kinds.js';

export type { SimpleCommand, Redirect } from './command.js';

const MAX_DEPTH = 6;
const MAX_COMMANDS = 500;
const MAX_VARIANTS = 8;
/** Most elements an array keeps (`a=("${a[@]}" "${a[@]}")` doubles it each time). */
const MAX_ELEMENTS = 256;
/** Work the assessment may do on one command line (tokens, parts, fields, commands): the suite's busiest takes 64. */
const MAX_STEPS = 50_000;

/** Thrown past a limit; analyzeCommand turns it into a blocked finding with this message. */
class TooComplex extends Error {}
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=/;
const DECLARATIONS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

interface PendingRedirect {
  op: string;
  fd: string;
  heredoc?: HereDoc;
  target?: WordToken;
}

interface Node {
  words: WordToken[];
  redirects: PendingRedirect[];
}

export interface Analysis {
  commands: SimpleCommand[];
  findings: Finding[];
}

class Analyzer {
  readonly commands: SimpleCommand[] = [];
  readonly findings: Finding[] = [];
  private readonly outputs = new Map<SimpleCommand, string | undefined>();
  private steps = 0;
  /** Files the script wrote so far, by their expanded path. */
  private readonly written = new Map<string, WrittenFile>();

  constructor(private readonly ctx: PathContext) {}

  /** Counts work; past MAX_STEPS the reading stops (the caller blocks the command). */
  spend(steps: number): void {
    this.steps += steps;
    if (this.steps > MAX_STEPS) throw new TooComplex('too long or too complex to check before it runs; split it into smaller commands');
  }

  /** Reads one script; returns the commands at its top level (for what it prints). */
  script(text: string, scope: Scope, depth: number, inherited: Stdin | undefined): SimpleCommand[] {
    if (depth > MAX_DEPTH) {
      this.findings.push({ level: 'blocked', reason: `scripts nested more than ${MAX_DEPTH} deep, too deep to check before they run` });
      return [];
    }
    const { tokens, notes } = lex(text);
    if (notes.unterminated) this.findings.push({ level: 'risky', reason: 'an unterminated quote, substitution or here-document (bash would read it differently)' });
    const top: SimpleCommand[] = [];
    let node: Node = { words: [], redirects: [] };
    let pending: PendingRedirect | undefined;
    let pipeline: SimpleCommand[] = [];
    let pipeText: string | undefined;
    let conditional = false;
    let nesting = 0;
    const opened: number[] = [];
    let compound: SimpleCommand[] | undefined;
    let forLoop: { stage: 'name' | 'in' | 'words'; name: string; words: WordToken[] } | undefined;
    let caseStage: 'word' | 'in' | 'pattern' | 'body' | undefined;
    let testMode = false;
    let skipName = false;
    let functionParens = 0;
    /** A function being defined: its name until its `{`, then where its body starts. */
    let functionName: string | undefined;
    const functions: Array<{ name: string; level: number; start: number; positional: string[] | undefined }> = [];

    const finishFor = () => {
      if (!forLoop || forLoop.stage === 'name') {
        forLoop = undefined;
        return;
      }
      const expander = new Expander(scope);
      const values = forLoop.stage === 'in' ? scope.positional ?? [UNKNOWN] : forLoop.words.flatMap((word) => this.wordFields(word, expander)[0] ?? []).map((f) => f.text);
      this.assign(scope, forLoop.name, { values: values.slice(0, MAX_VARIANTS), maybeOther: values.length > MAX_VARIANTS }, true);
      forLoop = undefined;
    };

    const end = (piped: boolean) => {
      if (node.words.length === 0 && node.redirects.length === 0) {
        if (piped && compound) {
          pipeline = [...compound];
          pipeText = this.joinOutputs(compound);
        } else if (!piped) {
          pipeline = [];
          pipeText = undefined;
        }
        compound = undefined;
        return;
      }
      compound = undefined;
      const stdinFromPipe: Stdin | undefined = pipeline.length > 0 ? { kind: 'pipe', text: pipeText, programs: pipePrograms(pipeline) } : undefined;
      const emitted = this.node(node, scope, depth, conditional || nesting > 0, pipeline, stdinFromPipe ?? inherited);
      node = { words: [], redirects: [] };
      if (emitted.length > 0) {
        top.push(...emitted);
        if (piped) {
          pipeText = this.outputs.get(emitted[0]);
          pipeline = [...pipeline, emitted[0]];
        }
      }
      if (!piped) {
        pipeline = [];
        pipeText = undefined;
      }
    };

    for (const token of tokens) {
      this.spend(1);
      if (this.commands.length > MAX_COMMANDS) throw new TooComplex(`more than ${MAX_COMMANDS} commands, too many to check before they run; split them up`);
      if (token.kind === 'arith-cmd') {
        new Expander(scope).joined(lexString(token.expr, true));
        continue;
      }
      if (token.kind === 'redir') {
        pending = { op: token.op, fd: token.fd, heredoc: token.heredoc };
        node.redirects.push(pending);
        continue;
      }
      if (token.kind === 'word') {
        if (pending) {
          pending.target = token;
          pending = undefined;
          continue;
        }
        const raw = token.raw;
        if (testMode) {
          if (raw === ']]') testMode = false;
          node.words.push(token);
          continue;
        }
        if (skipName) {
          skipName = false;
          functionName = raw;
          continue;
        }
        if (forLoop) {
          if (forLoop.stage === 'name') forLoop = { ...forLoop, stage: 'in', name: raw };
          else if (forLoop.stage === 'in' && raw === 'in') forLoop.stage = 'words';
          else if (forLoop.stage === 'words') forLoop.words.push(token);
          else if (raw === 'do') finishFor();
          continue;
        }
        if (caseStage === 'word') {
          new Expander(scope).joined(token.parts);
          caseStage = 'in';
          continue;
        }
        if (caseStage === 'in') {
          if (raw === 'in') caseStage = 'pattern';
          continue;
        }
        if (caseStage === 'pattern') {
          if (raw === 'esac') {
            caseStage = undefined;
            nesting = Math.max(0, nesting - 1);
            compound = top.slice(opened.pop() ?? top.length);
          } else new Expander(scope).joined(token.parts);
          continue;
        }
        if (node.words.length === 0 && node.redirects.length === 0) {
          if (/^(if|while|until)$/.test(raw)) {
            nesting++;
            opened.push(top.length);
            continue;
          }
          if (/^(then|do|else|elif|!)$/.test(raw)) continue;
          if (raw === '{') {
            nesting++;
            opened.push(top.length);
            if (functionName !== undefined) {
              // The body is judged as it stands with `$1`… unknown, and again at each call with the call's words.
              functions.push({ name: functionName, level: nesting, start: token.end, positional: scope.positional });
              scope.positional = undefined;
              functionName = undefined;
            }
            continue;
          }
          if (raw === '}' && functions.at(-1)?.level === nesting) {
            const fn = functions.pop()!;
            scope.functions.set(fn.name, text.slice(fn.start, token.start));
            scope.positional = fn.positional;
          }
          if (/^(\}|fi|done|esac)$/.test(raw)) {
            nesting = Math.max(0, nesting - 1);
            compound = top.slice(opened.pop() ?? top.length);
            if (raw === 'esac') caseStage = undefined;
            continue;
          }
          if (raw === 'for' || raw === 'select') {
            nesting++;
            opened.push(top.length);
            forLoop = { stage: 'name', name: '', words: [] };
            continue;
          }
          if (raw === 'case') {
            nesting++;
            opened.push(top.length);
            caseStage = 'word';
            continue;
          }
          if (raw === 'function') {
            skipName = true;
            continue;
          }
          if (raw === 'coproc') continue;
          if (raw === '[[') testMode = true;
        }
        node.words.push(token);
        continue;
      }
      // Operators.
      const op = token.op;
      pending = undefined;
      if (testMode) {
        if (op !== '\n' && op !== ';') continue;
        testMode = false;
      }
      if (forLoop && (op === ';' || op === '\n')) {
        if (forLoop.stage !== 'name') forLoop.stage = forLoop.stage === 'in' ? 'in' : 'words';
        finishFor();
        continue;
      }
      if (caseStage === 'pattern') {
        if (op === ')') caseStage = 'body';
        continue;
      }
      if ((op === '(' && node.words.length === 1 && node.redirects.length === 0) || (op === '(' && functionName !== undefined && node.words.length === 0)) {
        // `name() { …; }` or `function name() { …; }`: a function definition.
        functionName ??= node.words[0]?.raw;
        node = { words: [], redirects: [] };
        functionParens = 1;
        continue;
      }
      if (op === ')' && functionParens > 0) {
        functionParens = 0;
        continue;
      }
      if (op === '(' && node.words.length === 0) {
        nesting++;
        opened.push(top.length);
        continue;
      }
      if (op === ')') {
        end(false);
        nesting = Math.max(0, nesting - 1);
        compound = top.slice(opened.pop() ?? top.length);
        continue;
      }
      end(op === '|' || op === '|&');
      if (caseStage === 'body' && (op === ';;' || op === ';&' || op === ';;&')) caseStage = 'pattern';
      if (op === '&&' || op === '||') conditional = true;
      else if (op !== '|' && op !== '|&') conditional = false;
    }
    end(false);
    return top;
  }

  /** The fields of a word after brace expansion: one list per alternative. */
  private wordFields(word: WordToken, expander: Expander): Field[][] {
    const braced = word.raw.includes('{') ? braceExpand(word.raw) : undefined;
    if (!braced) return expander.fields(word.parts);
    // A cut list of words could hide one (`{a,b,…,rm}`); a cut sequence (`{1..1000}`) only repeats its pattern.
    if (braced.length >= MAX_BRACE_WORDS && /\{[^{}]*,[^{}]*\}/.test(word.raw)) expander.notes.truncated = true;
    const lists = braced.map((raw) => expander.fields(lexString(raw, false)));
    const first = lists.map((alternatives) => alternatives[0] ?? []).flat();
    return [first];
  }

  private assign(scope: Scope, name: string, given: VarValue, conditional: boolean): void {
    const value = capValue(given);
    const old = scope.vars.get(name) ?? (conditional ? lookup(name, scope) : undefined);
    if (!conditional || !old) {
      scope.vars.set(name, value);
      return;
    }
    const values = [...new Set([...old.values, ...value.values])].slice(0, MAX_VARIANTS);
    scope.vars.set(name, { values, arrays: value.arrays ?? old.arrays, maybeOther: old.maybeOther || value.maybeOther });
  }

  /** Applies `name=value` (or `name=(…)`, `name+=…`) to the scope; its substitutions run. */
  private assignment(word: WordToken, scope: Scope, conditional: boolean): void {
    const match = ASSIGNMENT.exec(word.raw);
    if (!match) return;
    const [prefix, name, index, append] = match;
    const first = word.parts[0];
    const rest: Part[] = first?.kind === 'lit' && first.text.startsWith(prefix) ? [{ ...first, text: first.text.slice(prefix.length) }, ...word.parts.slice(1)] : word.parts.slice(1);
    const expander = new Expander(scope);
    const literal = rest[0]?.kind === 'lit' && !rest[0].quoted ? rest[0].text : '';
    if (literal.startsWith('(') && rest.length === 1 && literal.endsWith(')')) {
      const inner = lex(literal.slice(1, -1)).tokens.filter((t): t is WordToken => t.kind === 'word');
      const elements = inner.flatMap((t) => this.wordFields(t, expander)[0] ?? []).map((f) => f.text);
      this.assign(scope, name, { values: [elements[0] ?? ''], arrays: [elements], maybeOther: false }, conditional);
      return;
    }
    // `~` after `=` or `:` expands in an assignment.
    const tilded: Part[] = rest.map((part, i) =>
      part.kind === 'lit' && !part.quoted ? { ...part, text: part.text.replace(/(^|:)~(?=\/|:|$)/g, (_all, lead: string) => (i === 0 || lead ? lead + this.ctx.home : `${lead}~`)) } : part,
    );
    let values = expander.joined(tilded);
    for (const value of values) if (/\$\(|`/.test(value)) this.script(value, scope, 5, undefined);
    if (index) {
      this.assign(scope, name, { values: [UNKNOWN], maybeOther: true }, true);
      return;
    }
    if (append) values = values.flatMap((v) => candidatesOf(lookup(name, scope)).map((old) => old + v));
    this.assign(scope, name, { values: values.filter((v) => !isUnknown(v)).slice(0, MAX_VARIANTS), maybeOther: values.some(isUnknown) }, conditional);
  }

  /** Evaluates one simple command: its assignments, words, redirections, carriers and nested scripts. */
  private node(node: Node, scope: Scope, depth: number, conditional: boolean, pipeline: SimpleCommand[], stdinSource: Stdin | undefined): SimpleCommand[] {
    const words = node.words;
    let start = 0;
    while (start < words.length && ASSIGNMENT.test(words[start].raw)) start++;
    const onlyAssignments = start === words.length;
    if (onlyAssignments) for (const word of words) this.assignment(word, scope, conditional);
    else for (const word of words.slice(0, start)) new Expander(scope).joined(word.parts);
    const expander = new Expander(scope);
    const commandWords = words.slice(start);
    const isDeclaration = commandWords.length > 0 && DECLARATIONS.has(commandWords[0].raw);
    let variants: Field[][] = [[]];
    for (const [i, word] of commandWords.entries()) {
      if (isDeclaration && i > 0 && ASSIGNMENT.test(word.raw)) {
        this.assignment(word, scope, conditional || commandWords[0].raw === 'local');
        variants = variants.map((v) => [...v, { text: word.raw, expanded: false, glob: false }]);
        continue;
      }
      variants = extendReadings(variants, this.wordFields(word, expander), MAX_VARIANTS);
    }
    const redirects: Redirect[] = node.redirects.map((r) => this.redirect(r, expander));
    const stdin = this.stdinOf(redirects, node.redirects, scope, stdinSource);
    const findings: Finding[] = [];
    if (expander.notes.ifs) findings.push({ level: 'risky', reason: 'splits words with $IFS (a way to hide spaces)' });
    if (expander.notes.truncated) findings.push({ level: 'risky', reason: `a brace expansion of more than ${MAX_BRACE_WORDS} words, too large to follow`, reach: true });
    const substituted = [...expander.notes.programs];
    const emitted: SimpleCommand[] = [];
    for (const fields of variants) {
      if (fields.length === 0 && redirects.length === 0) continue;
      const own: Finding[] = [...findings];
      const head = fields[0];
      if (head?.expanded) {
        own.push(
          isUnknown(head.text)
            ? { level: 'risky', reason: `the command name is known only at run time (${showWord(head.text)})`, reach: true }
            : { level: 'risky', reason: `the command name comes from an expansion or substitution (${head.text})`, reach: !/^[\w./-]+$/.test(head.text) },
        );
      }
      // `[` and `[[` are test commands, not patterns: a pattern needs `*`, `?` or a closed `[…]`.
      if (head?.glob && /[*?]|\[[^\]]+\]/.test(head.text)) own.push({ level: 'risky', reason: `the command name is a glob pattern (${head.text})`, reach: true });
      const argv = fields.map((f) => f.text);
      emitted.push(...this.emit(argv, { redirects, stdin, substituted, findings: own, pipeline, scope, depth, via: [] }));
      // `builtin cd /` and `command cd /` change the folder as `cd /` does.
      if (emitted.length === 1) this.builtin(/^(builtin|command)$/.test(argv[0] ?? '') ? argv.slice(1) : argv, scope, conditional, stdin);
    }
    return emitted;
  }

  /** Judges an argv (after expansion): unwraps carriers, reads nested scripts, records the command. */
  private emit(argv: string[], base: { redirects: Redirect[]; stdin: Stdin; substituted: string[]; findings: Finding[]; pipeline: SimpleCommand[]; scope: Scope; depth: number; via: string[] }): SimpleCommand[] {
    const { scope, depth } = base;
    const written = (path: string) => this.written.get(fileKey(path, this.ctx, scope.cwd));
    const unwrapped = unwrap({ argv, stdin: base.stdin, procsubs: scope.procsubs, stdinItems: () => stdinItems(base.stdin), written });
    const inner = unwrapped.argv;
    const command: SimpleCommand = {
      argv: inner.length > 0 ? [baseName(inner[0]), ...inner.slice(1)] : [],
      path: inner[0] ?? '',
      redirects: base.redirects,
      pipeIndex: base.pipeline.length,
      pipedFrom: base.pipeline,
      substituted: base.substituted,
      stdin: base.stdin,
      ...(cwdOf(unwrapped.cwd, scope.cwd) ? { cwd: cwdOf(unwrapped.cwd, scope.cwd) } : {}),
      findings: [...base.findings, ...unwrapped.findings],
      via: [...base.via, ...unwrapped.via],
      ...(unwrapped.source ? { source: unwrapped.source } : {}),
      code: unwrapped.code,
    };
    // A carrier's inner command whose name is unknown (`sudo "$x" -rf /`) fails closed like a bare one.
    if (unwrapped.via.length > 0 && inner[0] !== undefined && isUnknown(inner[0])) {
      command.findings.push({ level: 'risky', reason: `${unwrapped.via.at(-1)} runs a command known only at run time (${showWord(inner[0])})`, reach: true });
    }
    this.commands.push(command);
    this.spend(1 + argv.length);
    const printed = commandOutput(command.argv, base.stdin.text);
    this.outputs.set(command, printed === undefined ? undefined : capText(printed));
    if (argv.length > 0 && unwrapped.via.length > 0 && inner.length === 0 && argv.some(isUnknown)) {
      command.findings.push({ level: 'risky', reason: `${unwrapped.via.at(-1)} runs something known only at run time` });
    }
    this.recordWrites(command, scope);
    // A call of a function the script defined runs its body with the call's words as `$1`….
    const body = inner[0] !== undefined && !inner[0].includes('/') ? scope.functions.get(inner[0]) : undefined;
    if (body !== undefined) this.nested({ text: body, positional: inner.slice(1), arg0: scope.arg0, origin: `function ${inner[0]}` }, scope, depth, base.stdin);
    // `./x.sh` or `/tmp/x.sh` that the script itself wrote: its text is read like `bash x.sh`.
    const ownFile = command.path.includes('/') && !isUnknown(command.path) ? written(command.path) : undefined;
    if (ownFile) {
      const program = fileProgram(ownFile, command.argv[0], command.path);
      command.source = program;
      if (program.unknown) command.findings.push({ level: 'risky', reason: program.unknown });
      for (const text of program.texts) this.nested({ text, positional: command.argv.slice(1), origin: command.path }, scope, depth, base.stdin);
    }
    for (const script of unwrapped.scripts) this.nested(script, scope, depth, base.stdin);
    for (const code of unwrapped.code) {
      const reading = readCode(code, codeLanguage(command.argv[0] ?? ''), this.ctx);
      this.spend(reading.commands.length + reading.findings.length);
      for (const piece of reading.commands) this.nested({ text: piece.text, origin: `${command.argv[0]} code` }, scope, depth, base.stdin);
      for (const found of reading.findings) command.findings.push({ level: found.level, reason: `${command.argv[0]} code ${found.reason} (line ${found.line}: ${found.call})` });
    }
    for (const extra of unwrapped.commands) {
      this.emit(extra, { ...base, redirects: [], substituted: [], findings: [], pipeline: [], via: [...command.via, 'find'] });
    }
    return [command];
  }

  /** Remembers what this command writes (`> file`, `tee file`, `cp`, `mv`, `curl -o`), so a later `bash file` reads it. */
  private recordWrites(command: SimpleCommand, scope: Scope): void {
    const key = (path: string) => fileKey(path, this.ctx, command.cwd ?? scope.cwd);
    const output = this.outputs.get(command);
    const name = command.argv[0] ?? '';
    const programs = DOWNLOADERS.has(name) ? [name] : [];
    const handled = new Set<string>();
    for (const redirect of command.redirects) {
      if (!/>/.test(redirect.op) || redirect.op === '>&' || isUnknown(redirect.target)) continue;
      const stdout = redirect.fd === '' || redirect.fd === '1' || redirect.op.startsWith('&');
      const text = stdout ? output : undefined;
      const path = key(redirect.target);
      handled.add(redirect.target);
      if (redirect.op.endsWith('>>')) {
        const before = this.written.get(path);
        const joined = before?.text !== undefined && text !== undefined ? before.text + text : undefined;
        this.written.set(path, { ...(joined !== undefined ? { text: joined } : {}), ...(text !== undefined ? { part: text } : {}), programs: [...(before?.programs ?? []), ...programs] });
      } else this.written.set(path, { ...(text !== undefined ? { text } : {}), programs });
    }
    const operands = command.argv.slice(1).filter((word) => !word.startsWith('-'));
    if ((name === 'cp' || name === 'mv') && operands.length === 2 && !operands.some(isUnknown)) {
      const from = this.written.get(key(operands[0]));
      if (from) this.written.set(key(operands[1]), from);
      handled.add(operands[1]);
    }
    // chmod and friends change a file's metadata, not its text.
    if (/^(chmod|chown|chgrp|chattr|setfacl|touch)$/.test(name)) return;
    for (const target of writeTargets(command)) {
      if (handled.has(target) || isUnknown(target)) continue;
      const text = name === 'tee' ? command.stdin.text : undefined;
      this.written.set(key(target), { ...(text !== undefined ? { text } : {}), programs });
    }
  }

  private nested(script: NestedScript, scope: Scope, depth: number, stdin: Stdin): void {
    const child: Scope = {
      ...scope,
      vars: new Map(scope.vars),
      positional: script.positional ?? scope.positional,
      arg0: script.arg0 ?? scope.arg0,
      procsubs: scope.procsubs,
    };
    this.script(script.text, child, depth + 1, script.stdin ?? (script.origin === 'eval' ? stdin : undefined));
  }

  private redirect(pending: PendingRedirect, expander: Expander): Redirect {
    const target = pending.target ? expander.joined(pending.target.parts, true)[0] ?? UNKNOWN : UNKNOWN;
    if (pending.op === '<<' || pending.op === '<<-') {
      const body = pending.heredoc ? (pending.heredoc.quoted ? pending.heredoc.body : expander.joined(pending.heredoc.parts)[0] ?? UNKNOWN) : '';
      return { op: pending.op, fd: pending.fd, target, body };
    }
    if (pending.op === '>&' && !/^\d*-?$/.test(target)) return { op: '&>', fd: pending.fd, target };
    return { op: pending.op, fd: pending.fd, target };
  }

  private stdinOf(redirects: Redirect[], pendings: PendingRedirect[], scope: Scope, source: Stdin | undefined): Stdin {
    let stdin: Stdin = source ?? { kind: 'none', programs: [] };
    redirects.forEach((r, i) => {
      if (r.fd !== '' && r.fd !== '0') return;
      if (r.op === '<<<') stdin = { kind: 'herestring', text: `${r.target}\n`, programs: [] };
      else if (r.op === '<<' || r.op === '<<-') stdin = { kind: 'heredoc', text: r.body, programs: [] };
      else if (r.op === '<' || r.op === '<>') {
        const proc = /^\0proc:(\d+)$/.exec(r.target);
        const sub = proc ? scope.procsubs[Number(proc[1])] : undefined;
        stdin = sub ? { kind: 'procsub', text: sub.output, programs: sub.programs } : { kind: 'file', programs: [] };
        if (!proc && pendings[i]?.target?.parts.some((p) => p.kind === 'procsub')) stdin = { kind: 'procsub', programs: [] };
      }
    });
    return stdin;
  }

  /** Builtins that change what later commands see: cd, set --, shift, unset, read, alias. */
  private builtin(argv: string[], scope: Scope, conditional: boolean, stdin: Stdin): void {
    const [name, ...args] = argv;
    if (name === 'cd' || name === 'pushd') {
      const target = args.filter((a) => !/^-[LPe@]+$/.test(a))[0];
      const next = target === undefined ? this.ctx.home : target === '-' || isUnknown(target) ? undefined : target.startsWith('/') ? target : scope.cwd ? `${scope.cwd}/${target}` : undefined;
      scope.cwd = conditional && next !== scope.cwd ? undefined : next && normalize(next);
    } else if (name === 'set' && args[0] === '--') scope.positional = args.slice(1);
    else if (name === 'shift' && scope.positional) scope.positional = scope.positional.slice(Number(args[0] ?? 1) || 1);
    else if (name === 'unset') for (const v of args.filter((a) => !a.startsWith('-'))) scope.vars.set(v, { values: [''], maybeOther: conditional });
    else if (name === 'read' || name === 'mapfile' || name === 'readarray' || name === 'getopts') {
      const names = args.filter((a, i) => /^[A-Za-z_]\w*$/.test(a) && !/^-[adinNptu]$/.test(args[i - 1] ?? ''));
      const line = name === 'read' && stdin.text !== undefined && !isUnknown(stdin.text) ? stdin.text.split('\n')[0] : undefined;
      const pieces = line === undefined ? [] : line.trim().split(/[ \t]+/);
      names.forEach((v, i) => {
        const value = line === undefined ? undefined : i === names.length - 1 ? pieces.slice(i).join(' ') : pieces[i] ?? '';
        scope.vars.set(v, value === undefined ? { values: [], maybeOther: true } : { values: [value], maybeOther: conditional });
      });
    } else if (name === 'printf' && args[0] === '-v' && args[1]) scope.vars.set(args[1], { values: [], maybeOther: true });
    else if (name === 'alias') {
      for (const definition of args) {
        const eq = definition.indexOf('=');
        if (eq > 0) this.script(definition.slice(eq + 1), scope, 5, undefined);
      }
    }
  }

  private joinOutputs(commands: SimpleCommand[]): string | undefined {
    let text = '';
    for (const command of commands) {
      const output = this.outputs.get(command);
      if (output === undefined) return undefined;
      text += output;
    }
    return text;
  }

  /** What a substitution's script printed, and the programs it ran; its commands are judged as well. */
  substitution(script: string, scope: Scope, kind: 'cmdsub' | 'procsub'): SubstitutionResult {
    const before = this.commands.length;
    const child: Scope = { ...scope, vars: new Map(scope.vars), procsubs: scope.procsubs };
    const top = this.script(script, child, 1, undefined);
    const programs = this.commands.slice(before).map((c) => c.argv[0] ?? '');
    // Only the last pipeline's output matters for `$(a | b)`; a lone command's output is its own.
    const last = top.at(-1);
    const output = kind === 'cmdsub' && top.length > 0 ? (top.every((c) => this.outputs.get(c) !== undefined) ? this.joinLast(top) : undefined) : last ? this.outputs.get(last) : undefined;
    return { output, programs };
  }

  private joinLast(top: SimpleCommand[]): string | undefined {
    // Commands of one pipeline feed each other: only those not piped onward print (each stage marks the one before it).
    const pipedOn = new Set(top.map((c) => c.pipedFrom.at(-1)));
    const printing = top.filter((c) => !pipedOn.has(c));
    return this.joinOutputs(printing);
  }
}

/** The programs whose output flows down a pipeline, each once (a pipeline of 2000 `cat`s stays cheap). */
function pipePrograms(pipeline: readonly SimpleCommand[]): string[] {
  const seen = new Set<string>();
  for (const command of pipeline) {
    seen.add(command.argv[0] ?? '');
    for (const program of command.substituted) seen.add(program);
  }
  return [...seen];
}

/** A value within the caps: texts cut at MAX_TEXT, arrays of at most MAX_ELEMENTS (else not known). */
function capValue(value: VarValue): VarValue {
  const long = value.values.some((v) => v.length > MAX_TEXT);
  const big = value.arrays?.some((elements) => elements.length > MAX_ELEMENTS || elements.some((e) => e.length > MAX_TEXT));
  if (!long && !big) return value;
  const values = value.values.filter((v) => v.length <= MAX_TEXT);
  return { values, ...(big ? {} : value.arrays ? { arrays: value.arrays } : {}), maybeOther: true };
}

/** The folder a command runs in: a carrier's `-C dir` (relative to the script's), else the script's. */
function cwdOf(carrier: string | undefined, current: string | undefined): string | undefined {
  if (carrier === undefined) return current;
  if (isUnknown(carrier)) return undefined;
  return carrier.startsWith('/') ? normalize(carrier) : current ? normalize(`${current}/${carrier}`) : undefined;
}

const candidatesOf = (value: VarValue): string[] => (value.maybeOther || value.values.length === 0 ? [...value.values, UNKNOWN] : value.values);

function normalize(path: string): string {
  const parts: string[] = [];
  for (const piece of path.split('/')) {
    if (piece === '' || piece === '.') continue;
    if (piece === '..') parts.pop();
    else parts.push(piece);
  }
  return `/${parts.join('/')}`;
}

/** A file's path as the script names it, so `x`, `./x` and `$PWD/x` are one file. */
function fileKey(path: string, ctx: PathContext, cwd: string | undefined): string {
  const full = expandPath(path, ctx, cwd);
  return full.startsWith('/') ? full : posix.normalize(full);
}

/** The words xargs reads from its stdin: blanks and newlines separate them. */
function stdinItems(stdin: Stdin): string[] {
  if (stdin.text === undefined) return [UNKNOWN];
  const items = stdin.text.split(/[ \t\n]+/).filter((item) => item !== '');
  return items.length > 0 ? items.slice(0, 16) : [];
}

/** Every simple command in `text` as bash would run it, with what could not be resolved. */
export function analyzeCommand(text: string, ctx: PathContext): Analysis {
  const analyzer = new Analyzer(ctx);
  const scope: Scope = {
    vars: new Map(),
    positional: [],
    arg0: 'bash',
    ctx,
    cwd: undefined,
    procsubs: [],
    functions: new Map(),
    run: (script, kind, current) => analyzer.substitution(script, current, kind),
    spend: (steps) => analyzer.spend(steps),
  };
  try {
    analyzer.script(text, scope, 0, undefined);
  } catch (error) {
    if (!(error instanceof TooComplex)) throw error;
    analyzer.findings.push({ level: 'blocked', reason: error.message });
  }
  return { commands: analyzer.commands, findings: analyzer.findings };
}

/** Every simple command in `text`, including those inside substitutions, `bash -c` strings and carriers. */
export function parseCommands(text: string, ctx: Partial<PathContext> = {}): SimpleCommand[] {
  return analyzeCommand(text, { home: ctx.home ?? '/root', hermesHome: ctx.hermesHome ?? '/root/.hermes', gatewayPid: ctx.gatewayPid }).commands;
}
