/**
 * A session_search query as people (and models) write it — keywords, "quoted phrases", OR,
 * NOT or -word, prefix* — read into terms, then written for each engine's full-text syntax.
 * Only letters and digits reach the engine, so no input can break out of the query.
 */
export type QueryTerm =
  | { kind: 'word'; text: string; prefix: boolean }
  | { kind: 'phrase'; words: string[] }
  | { kind: 'or' }
  | { kind: 'not' };

const WORD = /[\p{L}\p{N}_]+/gu;

function words(text: string): string[] {
  return (text.match(WORD) ?? []).map((word) => word.toLowerCase());
}

export function parseQuery(query: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  const token = /"([^"]*)"?|(-?)([^\s"]+)/g;
  for (let match = token.exec(query); match; match = token.exec(query)) {
    if (match[1] !== undefined) {
      const phrase = words(match[1]);
      if (phrase.length === 1) terms.push({ kind: 'word', text: phrase[0], prefix: false });
      else if (phrase.length > 1) terms.push({ kind: 'phrase', words: phrase });
      continue;
    }
    const raw = match[3];
    if (match[2] === '' && (raw === 'OR' || raw === '|')) {
      terms.push({ kind: 'or' });
      continue;
    }
    if (match[2] === '' && raw === 'NOT') {
      terms.push({ kind: 'not' });
      continue;
    }
    if (match[2] === '-') terms.push({ kind: 'not' });
    const found = words(raw);
    found.forEach((text, index) => terms.push({ kind: 'word', text, prefix: index === found.length - 1 && raw.endsWith('*') }));
  }
  return tidy(terms);
}

/** Drops operators with nothing to join: a leading OR or NOT, doubled operators, a trailing one. */
function tidy(terms: QueryTerm[]): QueryTerm[] {
  const out: QueryTerm[] = [];
  for (const term of terms) {
    const isOperator = term.kind === 'or' || term.kind === 'not';
    const last = out.at(-1);
    if (isOperator && (!last || last.kind === 'or' || last.kind === 'not')) continue;
    out.push(term);
  }
  while (out.length > 0 && (out.at(-1)!.kind === 'or' || out.at(-1)!.kind === 'not')) out.pop();
  return out;
}

/** FTS5: `"word"`, `"word"*`, `"two words"`, `OR`, `NOT`; neighbours are ANDed. */
export function toFts5(terms: readonly QueryTerm[]): string {
  return terms
    .map((term) => {
      if (term.kind === 'or') return 'OR';
      if (term.kind === 'not') return 'NOT';
      if (term.kind === 'phrase') return `"${term.words.join(' ')}"`;
      return `"${term.text}"${term.prefix ? '*' : ''}`;
    })
    .join(' ');
}

/** PostgreSQL to_tsquery: `'word'`, `'word':*`, `('two' <-> 'words')`, `|`, `& !`; neighbours joined by `&`. */
export function toTsquery(terms: readonly QueryTerm[]): string {
  let out = '';
  let joiner = '';
  for (const term of terms) {
    if (term.kind === 'or') {
      joiner = ' | ';
      continue;
    }
    if (term.kind === 'not') {
      joiner = ' & !';
      continue;
    }
    const text = term.kind === 'phrase' ? `(${term.words.map((word) => `'${word}'`).join(' <-> ')})` : `'${term.text}'${term.prefix ? ':*' : ''}`;
    out += (out ? joiner || ' & ' : '') + text;
    joiner = '';
  }
  return out;
}
