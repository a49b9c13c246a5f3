/*
 * Bash's word expansions, worked out as far as they can be before the command runs: brace
 * expansion, `~`, parameters (with the common `${…}` operators), command substitutions of
 * `echo`/`printf`, `$IFS` field splitting. Whatever cannot be known becomes UNKNOWN; a value
 * that could be one of several things yields one alternative per candidate.
 */
import { lexString, type Part } from './shell-lexer.js';
import { UNKNOWN } from './command.js';
import { extendReadings } from './readings.js';
import type { PathContext } from './paths.js';

/** What a variable may hold: its candidate values, and whether it may hold something else too. */
export interface VarValue {
  values: string[];
  /** Candidate element lists when it is an array (`cmd=(rm -rf /)`). */
  arrays?: string[][];
  maybeOther: boolean;
}

/** What a nested script (a command or process substitution) printed, when that is known. */
export interface SubstitutionResult {
  output?: string;
  programs: string[];
}

export interface Scope {
  vars: Map<string, VarValue>;
  /** `$1`…; undefined when unknown. */
  positional: string[] | undefined;
  arg0: string;
  ctx: PathContext;
  cwd: string | undefined;
  /** Runs a substitution's script (its commands are judged too) and returns what it printed. */
  run(script: string, kind: 'cmdsub' | 'procsub', scope: Scope): SubstitutionResult;
  /** Process substitutions seen, for `bash <(curl …)`: a field `\0proc:N` refers to entry N. */
  procsubs: SubstitutionResult[];
  /** Functions the script defined, by name: their body's text. */
  functions: Map<string, string>;
  /** Counts work done; past the assessment's budget it throws, so a hostile string cannot stall the gateway. */
  spend(steps: number): void;
}

/** One word after expansion. */
export interface Field {
  text: string;
  /** Some of it came from an expansion or substitution. */
  expanded: boolean;
  /** It has unquoted glob characters. */
  glob: boolean;
}

/** What expanding a word noticed, for fail-closed findings. */
export interface ExpandNotes {
  ifs: boolean;
  /** An expansion was cut at its cap, so some words were not seen. */
  truncated?: boolean;
  programs: string[];
}

const MAX_ALTERNATIVES = 8;
/** Longest text an expansion keeps; past it the rest is unknown (`x=$x$x` forty times would not fit in memory). */
export const MAX_TEXT = 16 * 1024;

/** `text` cut at MAX_TEXT, the cut part marked unknown. */
export const capText = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}${UNKNOWN}` : text);
const DEFAULT_IFS = ' \t\n';

/** Variables whose value the assessment knows from its context. */
function contextValue(name: string, scope: Scope): VarValue | undefined {
  const { ctx } = scope;
  switch (name) {
    case 'HOME':
      return { values: [ctx.home], maybeOther: false };
    case 'HERMES_HOME':
      return { values: [ctx.hermesHome], maybeOther: false };
    case 'IFS':
      return { values: [DEFAULT_IFS], maybeOther: false };
    case 'PPID':
      return { values: [String(ctx.gatewayPid ?? process.pid)], maybeOther: false };
    case 'PWD':
      return scope.cwd ? { values: [scope.cwd], maybeOther: false } : undefined;
    case '?':
      return { values: ['0'], maybeOther: true };
    case '$':
      return { values: ['\u0002$$'], maybeOther: false };
    case '!':
      return { values: ['\u0002$!'], maybeOther: false };
    case '-':
      return { values: ['hB'], maybeOther: false };
    case '0':
      return { values: [scope.arg0], maybeOther: false };
    default:
      return undefined;
  }
}

/** The value of a parameter as the script has it so far. */
export function lookup(name: string, scope: Scope): VarValue {
  const assigned = scope.vars.get(name);
  if (assigned) return assigned;
  const known = contextValue(name, scope);
  if (known) return known;
  if (/^\d+$/.test(name)) {
    if (!scope.positional) return { values: [], maybeOther: true };
    return { values: [scope.positional[Number(name) - 1] ?? ''], maybeOther: false };
  }
  if (name === '#') return scope.positional ? { values: [String(scope.positional.length)], maybeOther: false } : { values: [], maybeOther: true };
  if (name === '@' || name === '*') {
    if (!scope.positional) return { values: [], maybeOther: true };
    return { values: [scope.positional.join(' ')], arrays: [scope.positional], maybeOther: false };
  }
  return { values: [], maybeOther: true };
}

const candidates = (value: VarValue): string[] => {
  const out = value.values.slice(0, MAX_ALTERNATIVES);
  if (value.maybeOther || out.length === 0) out.push(UNKNOWN);
  return out;
};

/** A glob pattern of `${x#pat}` and friends as a regular expression source. */
function patternSource(glob: string, greedy: boolean): string {
  let out = '';
  for (const c of glob) {
    if (c === '*') out += greedy ? '.*' : '.*?';
    else if (c === '?') out += '.';
    else out += c.replace(/[.+^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

/** Applies a `${name op arg}` operator to one known value. */
function applyOp(value: string, op: string, arg: string): string {
  if (value.includes(UNKNOWN) || arg.includes(UNKNOWN)) return UNKNOWN;
  switch (op) {
    case '#':
    case '##': {
      const match = new RegExp(`^(${patternSource(arg, op === '##')})`, 's').exec(value);
      return match ? value.slice(match[1].length) : value;
    }
    case '%':
    case '%%': {
      // Shortest suffix: try from the end; longest: from the start.
      const re = new RegExp(`^${patternSource(arg, true)}$`, 's');
      const starts = [...Array(value.length + 1).keys()];
      for (const start of op === '%%' ? starts : starts.reverse()) if (re.test(value.slice(start))) return value.slice(0, start);
      return value;
    }
    case '/':
    case '//':
    case '/#':
    case '/%': {
      const slash = arg.indexOf('/');
      const pattern = slash < 0 ? arg : arg.slice(0, slash);
      const replacement = slash < 0 ? '' : arg.slice(slash + 1);
      const source = patternSource(pattern, true);
      const anchored = op === '/#' ? `^(?:${source})` : op === '/%' ? `(?:${source})$` : source;
      return value.replace(new RegExp(anchored, op === '//' ? 'gs' : 's'), () => replacement);
    }
    case '^^':
      return value.toUpperCase();
    case ',,':
      return value.toLowerCase();
    case '^':
      return value.charAt(0).toUpperCase() + value.slice(1);
    case ',':
      return value.charAt(0).toLowerCase() + value.slice(1);
    case ':': {
      const match = /^\s*(-?\d*)\s*(?::\s*(-?\d*)\s*)?$/.exec(arg);
      if (!match) return UNKNOWN;
      const offset = Number(match[1] || 0);
      const start = offset < 0 ? Math.max(0, value.length + offset) : offset;
      if (match[2] === undefined) return value.slice(start);
      const length = Number(match[2] || 0);
      return length < 0 ? value.slice(start, value.length + length) : value.slice(start, start + length);
    }
    default:
      return UNKNOWN;
  }
}

/** One piece of text a part yields, and whether it is split into fields. */
interface Piece {
  text: string;
  split: boolean;
  quoted: boolean;
  expanded: boolean;
  glob: boolean;
  /** `"$@"`: each element its own field. */
  elements?: string[];
}

export class Expander {
  constructor(
    private readonly scope: Scope,
    readonly notes: ExpandNotes = { ifs: false, programs: [] },
  ) {}

  /** The text of parts with no field splitting (an assignment's value, a here-doc body, a `${x:-…}` argument): one candidate per alternative. */
  joined(parts: Part[], tilde = false): string[] {
    let alternatives = [''];
    parts.forEach((part, index) => {
      const texts = this.partPieces(part, index === 0 && tilde).map((pieces) => pieces.map((p) => p.elements?.join(' ') ?? p.text).join(''));
      const next: string[] = [];
      for (const prefix of alternatives) for (const text of texts) if (next.length < MAX_ALTERNATIVES) next.push(capText(prefix + text));
      alternatives = next;
    });
    return alternatives;
  }

  /** A word's fields: one list per alternative (a value with several candidates), each split and globbed as bash would. */
  fields(parts: Part[]): Field[][] {
    let alternatives: Piece[][] = [[]];
    parts.forEach((part, index) => {
      alternatives = extendReadings(alternatives, this.partPieces(part, index === 0), MAX_ALTERNATIVES);
    });
    return alternatives.map((pieces) => this.split(pieces));
  }

  /** The IFS currently in force; UNKNOWN when the script set it to something unknown. */
  private ifs(): string {
    const value = this.scope.vars.get('IFS');
    if (!value) return DEFAULT_IFS;
    return value.values.length === 1 && !value.maybeOther ? value.values[0] : UNKNOWN;
  }

  private split(pieces: Piece[]): Field[] {
    this.scope.spend(pieces.reduce((sum, piece) => sum + 1 + (piece.text.length >> 8), 0));
    const ifs = this.ifs();
    const out: Field[] = [];
    let current: Field | undefined;
    let keep = false;
    const open = (): Field => (current ??= { text: '', expanded: false, glob: false });
    const close = () => {
      if (current && (current.text !== '' || keep)) out.push(current);
      current = undefined;
      keep = false;
    };
    for (const piece of pieces) {
      if (piece.elements) {
        piece.elements.forEach((element, i) => {
          if (i > 0) close();
          const field = open();
          field.text += element;
          field.expanded = true;
          keep = true;
        });
        if (piece.elements.length === 0 && !current) continue;
        continue;
      }
      if (!piece.split || ifs === '' || ifs === UNKNOWN) {
        const field = open();
        field.text += piece.text;
        field.expanded ||= piece.expanded;
        field.glob ||= piece.glob;
        if (piece.quoted) keep = true;
        continue;
      }
      // Unquoted expansion: IFS characters separate fields; runs of IFS whitespace count once.
      let i = 0;
      const text = piece.text;
      while (i < text.length) {
        const c = text[i];
        if (ifs.includes(c)) {
          const white = ' \t\n'.includes(c);
          close();
          i++;
          if (white) while (i < text.length && ' \t\n'.includes(text[i]) && ifs.includes(text[i])) i++;
          continue;
        }
        const field = open();
        field.text += c;
        field.expanded = true;
        field.glob ||= /[*?[]/.test(c);
        i++;
      }
    }
    close();
    return out;
  }

  /** The alternatives one part can yield. */
  private partPieces(part: Part, first: boolean): Piece[][] {
    this.scope.spend(1);
    switch (part.kind) {
      case 'lit': {
        let text = part.text;
        if (!part.quoted && first) text = this.tilde(text);
        return [[{ text, split: false, quoted: part.quoted, expanded: false, glob: !part.quoted && /[*?[]/.test(text) }]];
      }
      case 'param':
        return this.param(part);
      case 'cmdsub': {
        const result = this.scope.run(part.script, 'cmdsub', this.scope);
        this.notes.programs.push(...result.programs);
        const text = result.output === undefined ? UNKNOWN : result.output.replace(/\n+$/, '');
        return [[{ text, split: !part.quoted, quoted: part.quoted, expanded: true, glob: false }]];
      }
      case 'arith': {
        for (const inner of lexString(part.expr, true)) this.partPieces(inner, false);
        const text = /^\s*\d+\s*$/.test(part.expr) ? part.expr.trim() : UNKNOWN;
        return [[{ text, split: !part.quoted, quoted: part.quoted, expanded: true, glob: false }]];
      }
      case 'procsub': {
        const result = this.scope.run(part.script, 'procsub', this.scope);
        this.notes.programs.push(...result.programs);
        this.scope.procsubs.push(result);
        return [[{ text: `${UNKNOWN}proc:${this.scope.procsubs.length - 1}`, split: false, quoted: true, expanded: true, glob: false }]];
      }
    }
  }

  /** `~`, `~user`, `~+` at the start of an unquoted word. */
  private tilde(text: string): string {
    const match = /^~([^/]*)(?=\/|$)/.exec(text);
    if (!match) return text;
    const user = match[1];
    const home = user === '' ? this.scope.ctx.home : user === '+' ? this.scope.cwd ?? UNKNOWN : user === '-' ? UNKNOWN : user === 'root' ? '/root' : /^[\w.-]+$/.test(user) ? `/home/${user}` : undefined;
    return home === undefined ? text : home + text.slice(match[0].length);
  }

  private param(part: Extract<Part, { kind: 'param' }>): Piece[][] {
    const { name, op, quoted } = part;
    if (name === 'IFS' && !quoted) this.notes.ifs = true;
    const value = lookup(name, this.scope);
    const piece = (text: string): Piece[] => [{ text, split: !quoted, quoted, expanded: true, glob: false }];
    // "$@" and "${arr[@]}": one field per element.
    if (op === '' && (name === '@' || (name === '*' && !quoted)) && value.arrays) {
      return value.arrays.slice(0, MAX_ALTERNATIVES).map((elements) => (quoted && name === '@' ? [{ text: '', split: false, quoted, expanded: true, glob: false, elements }] : piece(elements.join(' '))));
    }
    if (op.startsWith('[]')) {
      const index = this.joined(part.arg)[0]?.trim() ?? '';
      const arrays = this.scope.vars.get(name)?.arrays;
      if (op === '[]' && arrays && /^[@*]$/.test(index)) {
        return arrays.slice(0, MAX_ALTERNATIVES).map((elements) => (quoted && index === '@' ? [{ text: '', split: false, quoted, expanded: true, glob: false, elements }] : piece(elements.join(' '))));
      }
      if (op === '[]' && arrays && /^\d+$/.test(index)) return arrays.slice(0, MAX_ALTERNATIVES).map((elements) => piece(elements[Number(index)] ?? ''));
      return [piece(UNKNOWN)];
    }
    if (op === '#len') return [piece(value.maybeOther ? UNKNOWN : String(value.values[0]?.length ?? 0))];
    if (op.startsWith('!') || op === '?unknown' || /^@/.test(op)) return [piece(UNKNOWN)];
    const scalar = value.arrays && name !== '@' && name !== '*' ? { ...value, values: value.arrays.map((a) => a[0] ?? '') } : value;
    const known = candidates(scalar);
    const set = !scalar.maybeOther && scalar.values.length > 0;
    const nonEmpty = set && scalar.values.every((v) => v !== '');
    switch (op) {
      case '':
      case ':?':
      case '?':
        return known.map(piece);
      case ':-':
      case '-':
      case ':=':
      case '=': {
        const fallback = this.joined(part.arg);
        const sure = op.startsWith(':') ? nonEmpty : set;
        const out = sure ? known : [...known.filter((v) => v !== UNKNOWN && (op.startsWith(':') ? v !== '' : true)), ...fallback, ...(scalar.maybeOther ? [UNKNOWN] : [])];
        if (op.endsWith('=') && !sure) this.scope.vars.set(name, { values: out.filter((v) => v !== UNKNOWN), maybeOther: scalar.maybeOther });
        return [...new Set(out)].slice(0, MAX_ALTERNATIVES).map(piece);
      }
      case ':+':
      case '+': {
        const alternative = this.joined(part.arg);
        const sure = op === ':+' ? nonEmpty : set;
        const empty = !scalar.maybeOther && scalar.values.every((v) => v === '');
        if (sure) return alternative.map(piece);
        if (empty && op === ':+') return [piece('')];
        return [...alternative, ''].slice(0, MAX_ALTERNATIVES).map(piece);
      }
      default: {
        const args = this.joined(part.arg);
        const out: string[] = [];
        for (const v of known) for (const a of args) if (out.length < MAX_ALTERNATIVES) out.push(applyOp(v, op, a));
        return [...new Set(out)].map(piece);
      }
    }
  }
}
