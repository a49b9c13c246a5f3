/*
 * The V4A patch format hermes-agent's `patch(mode="patch", patch=...)` takes: several files
 * in one patch, each added, deleted or updated (and maybe moved) by hunks of context lines.
 *
 *   *** Begin Patch
 *   *** Update File: src/app.py
 *   @@ def main():
 *    context
 *   -old line
 *   +new line
 *   *** Add File: notes.txt
 *   +first line
 *   *** Delete File: old.txt
 *   *** End Patch
 */

export type V4aOperation =
  | { kind: 'add'; path: string; content: string }
  | { kind: 'delete'; path: string }
  | { kind: 'update'; path: string; moveTo?: string; hunks: V4aHunk[] };

export interface V4aHunk {
  /** The text after `@@`, a line to find first (a function's header); empty when none. */
  anchor: string;
  /** Context and removed lines, in order. */
  before: string[];
  /** Context and added lines, in order. */
  after: string[];
}

/** A patch that cannot be read or applied; the message names the file and the line. */
export class V4aError extends Error {}

const FILE_HEADER = /^\*\*\* (Add|Delete|Update) File: (.+)$/;

/** Reads a V4A patch into operations; throws V4aError naming the line that is wrong. */
export function parseV4a(text: string): V4aOperation[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  while (lines.length > 0 && lines[lines.length - 1].trim() === '') lines.pop();
  let at = lines.findIndex((line) => line.trim() === '*** Begin Patch');
  if (at === -1) throw new V4aError('patch: a V4A patch starts with "*** Begin Patch"');
  const end = lines.findIndex((line, index) => index > at && line.trim() === '*** End Patch');
  if (end === -1) throw new V4aError('patch: a V4A patch ends with "*** End Patch"');
  const operations: V4aOperation[] = [];
  at++;
  while (at < end) {
    const header = FILE_HEADER.exec(lines[at]);
    if (!header) {
      if (lines[at].trim() === '') {
        at++;
        continue;
      }
      throw new V4aError(`patch: line ${at + 1} of the patch: expected "*** Add File:", "*** Update File:" or "*** Delete File:", got ${JSON.stringify(lines[at])}`);
    }
    const [, kind, rawPath] = header;
    const path = rawPath.trim();
    at++;
    const body: string[] = [];
    while (at < end && !FILE_HEADER.test(lines[at])) body.push(lines[at++]);
    if (kind === 'Delete') {
      if (body.some((line) => line.trim() !== '')) throw new V4aError(`patch: "*** Delete File: ${path}" takes no lines after it`);
      operations.push({ kind: 'delete', path });
    } else if (kind === 'Add') {
      const bad = body.findIndex((line) => !line.startsWith('+'));
      if (bad !== -1) throw new V4aError(`patch: every line of "*** Add File: ${path}" starts with "+", not ${JSON.stringify(body[bad])}`);
      operations.push({ kind: 'add', path, content: body.map((line) => line.slice(1)).join('\n') + (body.length > 0 ? '\n' : '') });
    } else {
      operations.push(parseUpdate(path, body));
    }
  }
  if (operations.length === 0) throw new V4aError('patch: the V4A patch names no file');
  return operations;
}

function parseUpdate(path: string, body: string[]): V4aOperation {
  let moveTo: string | undefined;
  if (body[0]?.startsWith('*** Move to: ')) moveTo = body.shift()!.slice('*** Move to: '.length).trim();
  const hunks: V4aHunk[] = [];
  let hunk: V4aHunk | undefined;
  for (const line of body) {
    if (line === '*** End of File') continue;
    if (line.startsWith('@@')) {
      hunk = { anchor: line.slice(2).trim(), before: [], after: [] };
      hunks.push(hunk);
      continue;
    }
    if (!hunk) hunks.push((hunk = { anchor: '', before: [], after: [] }));
    const mark = line[0] ?? ' ';
    const rest = line.slice(1);
    if (mark === '-') hunk.before.push(rest);
    else if (mark === '+') hunk.after.push(rest);
    else if (mark === ' ' || line === '') {
      hunk.before.push(rest);
      hunk.after.push(rest);
    } else throw new V4aError(`patch: in "*** Update File: ${path}" a line starts with " ", "-", "+" or "@@", not ${JSON.stringify(line)}`);
  }
  const changes = hunks.filter((h) => h.before.length > 0 || h.after.length > 0);
  if (changes.length === 0 && !moveTo) throw new V4aError(`patch: "*** Update File: ${path}" has no changes`);
  return { kind: 'update', path, ...(moveTo ? { moveTo } : {}), hunks: changes };
}

/** Where `needle` (lines) occurs in `lines` from `from` on: exactly, else ignoring trailing, then all outer whitespace. */
function find(lines: string[], needle: string[], from: number): number {
  const tries = [(s: string) => s, (s: string) => s.trimEnd(), (s: string) => s.trim()];
  for (const norm of tries) {
    for (let start = from; start + needle.length <= lines.length; start++) {
      if (needle.every((line, i) => norm(lines[start + i]) === norm(line))) return start;
    }
  }
  return -1;
}

/** The file's new text after the update's hunks, in order; throws V4aError for a hunk not found. */
export function applyHunks(path: string, text: string, hunks: readonly V4aHunk[]): string {
  const crlf = text.includes('\r\n');
  const endsWithNewline = text.endsWith('\n');
  const lines = (crlf ? text.replace(/\r\n/g, '\n') : text).split('\n');
  if (endsWithNewline) lines.pop();
  let cursor = 0;
  for (const [index, hunk] of hunks.entries()) {
    if (hunk.anchor) {
      const anchor = find(lines, [hunk.anchor], cursor);
      if (anchor === -1) throw new V4aError(`patch: ${path}: hunk ${index + 1}: the line after @@ (${JSON.stringify(hunk.anchor)}) is not in the file`);
      cursor = anchor + (hunk.before[0] !== undefined && lines[anchor].trim() === hunk.before[0].trim() ? 0 : 1);
    }
    if (hunk.before.length === 0) {
      // Only added lines: at the anchor, else at the end of the file.
      const at = hunk.anchor ? cursor : lines.length;
      lines.splice(at, 0, ...hunk.after);
      cursor = at + hunk.after.length;
      continue;
    }
    const start = find(lines, hunk.before, cursor);
    if (start === -1) {
      throw new V4aError(
        `patch: ${path}: hunk ${index + 1}: its context and removed lines are not in the file (first: ${JSON.stringify(hunk.before[0])}); read the file and copy the lines exactly`,
      );
    }
    lines.splice(start, hunk.before.length, ...hunk.after);
    cursor = start + hunk.after.length;
  }
  const out = lines.join('\n') + (endsWithNewline ? '\n' : '');
  return crlf ? out.replace(/\n/g, '\r\n') : out;
}
