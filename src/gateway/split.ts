/*
 * Splits a reply to a platform's message limit: at line boundaries where it can, never
 * leaving a code block open across a cut (it is closed and reopened), with `(i/n)` markers.
 */

const FENCE = /^\s*(`{3,}|~{3,})/;
/** A fence line longer than this is treated as text, so reopening it stays cheap. */
const MAX_FENCE_LINE = 40;
/** Below this a chunk cannot carry a marker, a fence and some text. */
const MIN_LIMIT = 32;

/**
 * Splits `text` into chunks of at most `limit` characters (UTF-16 units, as JavaScript and
 * the chat platforms count them). A text that fits is returned as is; otherwise every chunk
 * ends with a line `(i/n)`.
 */
export function splitMessage(text: string, limit: number): string[] {
  if (text.length <= limit) return [text];
  if (limit < MIN_LIMIT) throw new RangeError(`splitMessage: limit ${limit} is below ${MIN_LIMIT} characters`);
  let digits = 1;
  for (;;) {
    // "\n(" + i + "/" + n + ")"
    const chunks = pack(text, limit - (2 * digits + 4));
    const n = chunks.length;
    if (String(n).length <= digits) return chunks.map((chunk, i) => `${chunk}\n(${i + 1}/${n})`);
    digits = String(n).length;
  }
}

function fenceOf(line: string): string | undefined {
  if (line.length > MAX_FENCE_LINE) return undefined;
  return FENCE.exec(line)?.[1];
}

/** Packs lines into chunks of at most `budget` characters, closing and reopening code blocks. */
function pack(text: string, budget: number): string[] {
  const chunks: string[] = [];
  let body: string[] = [];
  let length = 0;
  /** Lines in `body` that are not the reopened fence. */
  let content = 0;
  /** The fence line of the code block open at the end of `body`. */
  let open: string | undefined;

  const closer = (fenceLine: string) => fenceOf(fenceLine) ?? '```';
  const add = (line: string) => {
    length += (body.length > 0 ? 1 : 0) + line.length;
    body.push(line);
    content++;
  };
  const flush = () => {
    if (content === 0) return;
    chunks.push(open ? `${body.join('\n')}\n${closer(open)}` : body.join('\n'));
    body = open ? [open.trim()] : [];
    length = open ? open.trim().length : 0;
    content = 0;
  };
  /** Room left for a line, given the fence that will be open after it. */
  const room = (openAfter: string | undefined) =>
    budget - length - (body.length > 0 ? 1 : 0) - (openAfter ? closer(openAfter).length + 1 : 0);

  for (const line of text.split('\n')) {
    const fence = fenceOf(line);
    const after = fence ? (open ? undefined : line) : open;
    if (line.length <= room(after)) {
      add(line);
      open = after;
      continue;
    }
    flush();
    if (line.length <= room(after)) {
      add(line);
      open = after;
      continue;
    }
    // One line longer than a whole chunk: cut it, preferring a space.
    let rest = line;
    while (rest.length > 0) {
      const space = room(open);
      if (rest.length <= space) {
        add(rest);
        break;
      }
      const at = rest.lastIndexOf(' ', space - 1);
      const cut = at > space / 2 ? at + 1 : space;
      add(rest.slice(0, cut));
      rest = rest.slice(cut);
      flush();
    }
  }
  flush();
  return chunks;
}
