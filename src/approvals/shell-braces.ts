/*
 * Brace expansion on a word's source text, before anything else, as bash does it:
 * `{rm,-rf,/}` is three words, `a{1..3}` is a1 a2 a3. Quotes, escapes and `${…}` are not
 * braces. Capped, so a hostile word cannot grow without bound.
 */

/** At most this many words; a longer expansion is cut (and the cut reported). */
export const MAX_BRACE_WORDS = 64;
const MAX_WORDS = MAX_BRACE_WORDS;

/** The index of the `}` matching the `{` at `open`, and the top-level commas between; undefined when none. */
function braceGroup(raw: string, open: number): { close: number; commas: number[] } | undefined {
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') i++;
    else if (c === "'") i = raw.indexOf("'", i + 1) < 0 ? raw.length : raw.indexOf("'", i + 1);
    else if (c === '"') {
      i++;
      while (i < raw.length && raw[i] !== '"') i += raw[i] === '\\' ? 2 : 1;
    } else if (c === '$' && raw[i + 1] === '{') {
      let inner = 1;
      i += 2;
      while (i < raw.length && inner > 0) {
        if (raw[i] === '{') inner++;
        else if (raw[i] === '}') inner--;
        if (inner > 0) i++;
      }
    } else if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return { close: i, commas };
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  return undefined;
}

function sequence(body: string): string[] | undefined {
  const match = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!match) return undefined;
  const numeric = /\d/.test(match[1]);
  const from = numeric ? Number(match[1]) : match[1].charCodeAt(0);
  const to = numeric ? Number(match[2]) : match[2].charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  const out: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
    if (out.length >= MAX_WORDS) break;
  }
  return out;
}

/** The words a brace expansion makes of `raw`, or undefined when it has none. */
export function braceExpand(raw: string): string[] | undefined {
  if (!raw.includes('{')) return undefined;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === "'") {
      const end = raw.indexOf("'", i + 1);
      i = end < 0 ? raw.length : end;
      continue;
    }
    if (c === '"') {
      i++;
      while (i < raw.length && raw[i] !== '"') i += raw[i] === '\\' ? 2 : 1;
      continue;
    }
    if (c !== '{' || raw[i - 1] === '$') continue;
    const group = braceGroup(raw, i);
    if (!group) continue;
    const body = raw.slice(i + 1, group.close);
    let options: string[] | undefined;
    if (group.commas.length > 0) {
      const bounds = [i, ...group.commas, group.close];
      options = bounds.slice(1).map((end, k) => raw.slice(bounds[k] + 1, end));
    } else options = sequence(body);
    if (!options) continue;
    const prefix = raw.slice(0, i);
    const suffix = raw.slice(group.close + 1);
    const out: string[] = [];
    // Stop as soon as the cap is reached: `{a,b}{a,b}…` would otherwise take exponential time to cut.
    for (const option of options) {
      for (const word of braceExpand(prefix + option + suffix) ?? [prefix + option + suffix]) {
        out.push(word);
        if (out.length >= MAX_WORDS) return out;
      }
    }
    return out;
  }
  return undefined;
}
