/** A table of more rows than this is not read aloud. */
const LONG_TABLE_ROWS = 4;

/**
 * The part of an answer worth hearing: code blocks and long tables become "code omitted" /
 * "table omitted", Markdown marks and link targets go, and the whole is cut at `maxChars`.
 * The written answer is unchanged; this is only what is read aloud.
 */
export function speakableText(markdown: string, maxChars: number): string {
  const withoutCode = markdown.replace(/^\s*(```|~~~)[^\n]*\n[\s\S]*?(?:^\s*\1[^\n]*$|(?![\s\S]))/gm, '\n(code omitted)\n');
  const lines = withoutTables(withoutCode.split('\n'))
    // MEDIA: lines name files sent with the answer, not words.
    .filter((line) => !/^\s*MEDIA:\S/.test(line))
    .map(plainLine);
  const text = lines.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('\n'));
  return `${end > maxChars / 2 ? cut.slice(0, end + 1) : cut} (The rest is in the written answer.)`;
}

/** Tables (lines of `|` cells) longer than LONG_TABLE_ROWS become one line; short ones are read as text. */
function withoutTables(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    if (!isTableLine(lines[i])) {
      out.push(lines[i++]);
      continue;
    }
    let end = i;
    while (end < lines.length && isTableLine(lines[end])) end++;
    const rows = lines.slice(i, end).filter((line) => !/^\s*\|?[\s:|-]+\|?\s*$/.test(line));
    if (rows.length > LONG_TABLE_ROWS) out.push('(table omitted)');
    else out.push(...rows.map((row) => row.split('|').map((cell) => cell.trim()).filter(Boolean).join(', ')));
    i = end;
  }
  return out;
}

const isTableLine = (line: string) => /^\s*\|.*\|\s*$/.test(line);

function plainLine(line: string): string {
  return line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+/g, 'a link')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/^\s{0,3}#{1,6}\s+/, '')
    .replace(/^\s{0,3}>\s?/, '')
    .replace(/^\s*[-*+]\s+/, '')
    .replace(/(\*\*|__|~~)(.+?)\1/g, '$2')
    .replace(/(^|\W)[*_](\S(?:.*?\S)?)[*_](?=\W|$)/g, '$1$2');
}
