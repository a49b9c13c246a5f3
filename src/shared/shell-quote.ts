/** A POSIX-shell single-quoted word: `it's` becomes `'it'\''s'` (always quoted, the empty word too). */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
