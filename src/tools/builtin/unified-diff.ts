/** Lines the diff of the changed middle may span before it is shown as one replaced block. */
const MAX_DIFF_LINES = 4000;

type Op = { kind: ' ' | '-' | '+'; text: string; oldNo: number; newNo: number };

/** Splits keeping the knowledge of a missing final newline out of the way: lines without `\n`. */
function lines(text: string): string[] {
  if (text === '') return [];
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Myers' shortest edit script between two short line arrays. */
function editScript(a: string[], b: string[]): Array<'=' | '-' | '+'> {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Map<number, number>([[1, 0]]);
  const trace: Array<Map<number, number>> = [];
  for (let d = 0; d <= max; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1));
      let x = down ? (v.get(k + 1) ?? 0) : (v.get(k - 1) ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) return backtrack(trace, n, m, d);
    }
  }
  return [];
}

function backtrack(trace: Array<Map<number, number>>, n: number, m: number, dEnd: number): Array<'=' | '-' | '+'> {
  const ops: Array<'=' | '-' | '+'> = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = v.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push('=');
      x--;
      y--;
    }
    ops.push(down ? '+' : '-');
    if (down) y--;
    else x--;
  }
  while (x > 0 && y > 0) {
    ops.push('=');
    x--;
    y--;
  }
  return ops.reverse();
}

/**
 * A unified diff (`--- a/…`, `+++ b/…`, `@@` hunks with `context` lines around changes).
 * Common leading and trailing lines are trimmed first, so a small edit in a big file is cheap.
 */
export function unifiedDiff(before: string, after: string, name: string, context = 3): string {
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const script: Array<'=' | '-' | '+'> =
    midA.length + midB.length > MAX_DIFF_LINES
      ? [...midA.map(() => '-' as const), ...midB.map(() => '+' as const)]
      : editScript(midA, midB);

  const ops: Op[] = [];
  for (let i = Math.max(0, start - context); i < start; i++) ops.push({ kind: ' ', text: a[i], oldNo: i + 1, newNo: i + 1 });
  let x = start;
  let y = start;
  for (const step of script) {
    if (step === '=') ops.push({ kind: ' ', text: a[x++], oldNo: x, newNo: ++y });
    else if (step === '-') ops.push({ kind: '-', text: a[x++], oldNo: x, newNo: y });
    else ops.push({ kind: '+', text: b[y++], oldNo: x, newNo: y });
  }
  for (let i = 0; i < context && endA + i < a.length; i++) {
    ops.push({ kind: ' ', text: a[endA + i], oldNo: endA + i + 1, newNo: endB + i + 1 });
  }
  if (!ops.some((op) => op.kind !== ' ')) return '';

  // Group changes whose context overlaps into hunks.
  const changed = ops.map((op, i) => (op.kind !== ' ' ? i : -1)).filter((i) => i >= 0);
  const hunks: Array<[number, number]> = [];
  for (const i of changed) {
    const lo = Math.max(0, i - context);
    const hi = Math.min(ops.length - 1, i + context);
    const last = hunks[hunks.length - 1];
    if (last && lo <= last[1] + 1) last[1] = hi;
    else hunks.push([lo, hi]);
  }
  const out = [`--- a/${name}`, `+++ b/${name}`];
  for (const [lo, hi] of hunks) {
    const slice = ops.slice(lo, hi + 1);
    const oldLines = slice.filter((op) => op.kind !== '+');
    const newLines = slice.filter((op) => op.kind !== '-');
    const oldStart = oldLines.length > 0 ? oldLines[0].oldNo : slice[0].oldNo;
    const newStart = newLines.length > 0 ? newLines[0].newNo : slice[0].newNo;
    out.push(`@@ -${oldStart},${oldLines.length} +${newStart},${newLines.length} @@`);
    for (const op of slice) out.push(`${op.kind}${op.text}`);
  }
  return `${out.join('\n')}\n`;
}
