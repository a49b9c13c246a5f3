/** Quotes one word for a POSIX shell: `it's` becomes `'it'\''s'`. */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_./=:@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
