import { createHash } from 'node:crypto';

/** What an approval is asked for; stored rules and session grants match within a kind. */
export type ApprovalKind = 'command' | 'write' | 'script';

/** What the user is asked to approve. */
export interface ApprovalRequest {
  /** What would run or change, as the user sees it: the command, `write_file <path>`, or the script. */
  command: string;
  /** Why, in a few words (the assessment's reason: `git reset --hard discards uncommitted work`). */
  reason: string;
  /** A shell command when left out. */
  kind?: ApprovalKind;
  /** Ends the wait when it aborts (the tool call's own signal, e.g. a script's timeout). */
  signal?: AbortSignal;
}

/** How far an approval reaches: this request, every identical one until `/new`, or every identical one from now on. */
export type ApprovalScope = 'once' | 'session' | 'always';

/** Who asked or answered: a user of one platform. */
export interface ApprovalPerson {
  platform: string;
  id: string;
  name?: string;
}

/** What a session grant or a stored rule is matched on: the kind, the reason and the normalized form. */
export interface ApprovalKey {
  kind: ApprovalKind;
  reason: string;
  match: string;
}

/** The key of a request: `rm -rf  build` and `rm -rf build` share one; `rm -rf build` and `rm -rf dist` do not. */
export function approvalKey(request: ApprovalRequest): ApprovalKey {
  const kind = request.kind ?? 'command';
  return { kind, reason: request.reason, match: normalizedForm(kind, request.command) };
}

/** One string per key, for maps and sets. */
export function keyString(key: ApprovalKey): string {
  return JSON.stringify([key.kind, key.reason, key.match]);
}

/** A person as logs, rules and messages name them: `Ada` or the id. */
export function personName(person: ApprovalPerson): string {
  return person.name?.trim() || person.id;
}

/**
 * The form a request is matched on. A command has its runs of spaces and tabs outside quotes
 * folded to one space, blank lines dropped and lines trimmed (bash reads those alike); a file write is its text
 * as given (tool and absolute path); a script is the hash of its exact text, since Python's
 * whitespace is meaning.
 */
export function normalizedForm(kind: ApprovalKind, text: string): string {
  if (kind === 'script') return `sha256:${createHash('sha256').update(text).digest('hex')}`;
  if (kind === 'write') return text.trim();
  return foldShellBlanks(text);
}

/** Folds blanks outside quotes and drops empty lines; quoted text and escapes are kept as they are. */
function foldShellBlanks(command: string): string {
  let out = '';
  let quote: '"' | "'" | undefined;
  let blank = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      out += c;
      if (c === '\\' && quote === '"' && i + 1 < command.length) out += command[++i];
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === ' ' || c === '\t') {
      blank = true;
      continue;
    }
    const lineStart = out === '' || out.endsWith('\n');
    if (c === '\n') {
      if (!lineStart) out += '\n';
      blank = false;
      continue;
    }
    if (blank && !lineStart) out += ' ';
    blank = false;
    out += c;
    if (c === '\\' && i + 1 < command.length) out += command[++i];
    else if (c === '"' || c === "'") quote = c;
  }
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}
