import { closerOf, fenceOf } from './fences.js';

/** The open part of a streamed reply: a reopened fence line (or nothing) and the text after it. */
export interface OpenText {
  /** The fence line reopened at the start of this part (the previous one ended inside a code block). */
  prefix: string;
  body: string;
}

export interface Cut {
  /** The finished part: at most the limit, its code block closed. */
  head: string;
  /** How many characters of `body` the head took. */
  consumed: number;
  /** The fence line the next part reopens, or ''. */
  prefix: string;
}

/** The part as it reads: the reopened fence line, then the body. */
export function partText(open: OpenText): string {
  return open.prefix ? `${open.prefix}\n${open.body}` : open.body;
}

/**
 * Cuts the first part off `open` when it no longer fits in `limit` characters with its code
 * block closed: at a line boundary where one fits (a line longer than a part is cut at a
 * space, else hard). Undefined while it fits. Greedy, so a part once cut never changes as
 * more text arrives.
 */
export function cutPart(open: OpenText, limit: number): Cut | undefined {
  const lines = open.body.split('\n');
  let fence = open.prefix || undefined;
  const closerLength = (opener: string | undefined) => (opener ? closerOf(opener).length + 1 : 0);
  // The body of the part so far, as lines, and its length when joined.
  const kept: string[] = open.prefix ? [open.prefix] : [];
  let length = open.prefix.length;
  let consumed = 0;
  const total = partText(open).length + closerLength(fenceAtEnd(open));
  if (total <= limit) return undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const after = fenceOf(line) ? (fence ? undefined : line) : fence;
    const need = (kept.length > 0 ? 1 : 0) + line.length + closerLength(after);
    if (length + need <= limit) {
      kept.push(line);
      length += (kept.length > 1 ? 1 : 0) + line.length;
      consumed += line.length + (i < lines.length - 1 ? 1 : 0);
      fence = after;
      continue;
    }
    if (kept.length > (open.prefix ? 1 : 0)) break;
    // A line longer than a whole part: cut it, preferring a space.
    const room = limit - length - (kept.length > 0 ? 1 : 0) - closerLength(fence);
    const space = line.lastIndexOf(' ', room - 1);
    const at = space > room / 2 ? space + 1 : Math.max(1, room);
    kept.push(line.slice(0, at));
    consumed += at;
    break;
  }
  const head = kept.join('\n') + (fence ? `\n${closerOf(fence)}` : '');
  return { head, consumed, prefix: fence ? fence.trim() : '' };
}

function fenceAtEnd(open: OpenText): string | undefined {
  let fence = open.prefix || undefined;
  for (const line of open.body.split('\n')) if (fenceOf(line)) fence = fence ? undefined : line;
  return fence;
}
