/**
 * Rewrites `?` placeholders to PostgreSQL's `$1, $2, …`, leaving alone a `?` inside a quoted
 * string ('…', with '' escapes), a quoted name ("…") or a `--` comment. Returns the text and
 * how many placeholders it has.
 */
export function numberPlaceholders(text: string): { text: string; count: number } {
  let out = '';
  let count = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "'" || ch === '"') {
      const end = closingQuote(text, i, ch);
      out += text.slice(i, end);
      i = end;
    } else if (ch === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      out += text.slice(i, stop);
      i = stop;
    } else if (ch === '?') {
      out += `$${++count}`;
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  return { text: out, count };
}

/** The index just past the quote that closes the one at `start` (a doubled quote is an escape). */
function closingQuote(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i++;
    }
  }
  return text.length;
}
