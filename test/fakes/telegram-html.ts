/* Telegram's HTML parse mode as the Bot API checks it: supported tags, the four named entities
 * plus numeric ones, and the error texts the real server sends. */

const TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'code', 'pre', 'blockquote', 'tg-emoji']);
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

export type HtmlResult = { ok: true; text: string } | { ok: false; description: string };

const byteOffset = (text: string, index: number) => Buffer.byteLength(text.slice(0, index));

/** Parses `html` the way Telegram does; returns the visible text or the real error text. */
export function parseTelegramHtml(html: string): HtmlResult {
  const open: string[] = [];
  let text = '';
  let i = 0;
  const fail = (reason: string): HtmlResult => ({ ok: false, description: `Bad Request: can't parse entities: ${reason}` });
  while (i < html.length) {
    const ch = html[i];
    if (ch === '&') {
      const match = /^&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/.exec(html.slice(i, i + 12));
      if (match) {
        const name = match[1];
        if (name.startsWith('#x')) text += String.fromCodePoint(parseInt(name.slice(2), 16));
        else if (name.startsWith('#')) text += String.fromCodePoint(Number(name.slice(1)));
        else if (NAMED[name] !== undefined) text += NAMED[name];
        else text += match[0]; // unknown named entities stay as they are
        i += match[0].length;
        continue;
      }
      text += ch;
      i++;
      continue;
    }
    if (ch === '<') {
      const end = html.indexOf('>', i);
      if (end < 0) return fail(`Unclosed start tag at byte offset ${byteOffset(html, i)}`);
      const inner = html.slice(i + 1, end);
      if (inner.startsWith('/')) {
        const name = inner.slice(1).trim().toLowerCase();
        const expected = open.pop();
        if (expected === undefined) return fail(`Unexpected end tag at byte offset ${byteOffset(html, i)}`);
        if (expected !== name) {
          return fail(`Unmatched end tag at byte offset ${byteOffset(html, i)}, expected "</${expected}>", found "</${name}>"`);
        }
      } else {
        const name = /^[a-zA-Z-]*/.exec(inner)![0].toLowerCase();
        if (!TAGS.has(name)) return fail(`Unsupported start tag "${name}" at byte offset ${byteOffset(html, i)}`);
        open.push(name);
      }
      i = end + 1;
      continue;
    }
    text += ch;
    i++;
  }
  if (open.length > 0) return fail(`Can't find end tag corresponding to start tag "${open[open.length - 1]}"`);
  return { ok: true, text };
}
