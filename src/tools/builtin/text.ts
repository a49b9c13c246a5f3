/** Bytes inspected for a NUL when deciding whether a file is text (as git does). */
const SNIFF_BYTES = 8000;

/** True when the buffer looks binary: a NUL byte near the start. */
export function looksBinary(data: Buffer): boolean {
  return data.subarray(0, SNIFF_BYTES).includes(0);
}

/** Cuts a line longer than `max` characters and says how long it was. */
export function capLine(line: string, max: number): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}... [line truncated, ${line.length} chars]`;
}

/**
 * Keeps the first 40 % and the last 60 % of `text` when it is longer than `maxBytes`
 * bytes, with the same marker the environments use.
 */
export function capHeadTail(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const data = Buffer.from(text, 'utf8');
  if (data.length <= maxBytes) return { text, truncated: false };
  const head = Math.floor(maxBytes * 0.4);
  const tail = Math.ceil(maxBytes * 0.6);
  const omitted = data.length - head - tail;
  const marker = `\n... [OUTPUT TRUNCATED - ${omitted} bytes omitted out of ${data.length} total] ...\n`;
  return {
    text: data.subarray(0, head).toString('utf8') + marker + data.subarray(data.length - tail).toString('utf8'),
    truncated: true,
  };
}

/** Splits text into lines: `\n` ends a line, a trailing `\r` is dropped, a final newline adds no empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}
