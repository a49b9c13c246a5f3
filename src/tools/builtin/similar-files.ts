import { readdir } from 'node:fs/promises';
import { posix } from 'node:path';

/** Edit distance, for names short enough that the quadratic cost does not matter. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

/**
 * Up to five files next to a missing one whose names look like it (other case, a typo, the
 * same stem with another extension), as paths in the folder of the one asked for.
 */
export async function similarFiles(full: string, asked: string): Promise<string[]> {
  const folder = posix.dirname(full);
  const wanted = posix.basename(full).toLowerCase();
  const stem = wanted.replace(/\.[^.]*$/, '');
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return [];
  }
  const askedFolder = posix.dirname(asked);
  return names
    .map((name) => {
      const lower = name.toLowerCase();
      const score =
        lower === wanted ? 0 : lower.replace(/\.[^.]*$/, '') === stem ? 1 : distance(lower, wanted) <= 2 ? 2 : stem.length >= 3 && lower.includes(stem) ? 3 : -1;
      return { name, score };
    })
    .filter((entry) => entry.score >= 0)
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, 5)
    .map((entry) => (askedFolder === '.' ? entry.name : posix.join(askedFolder, entry.name)));
}
