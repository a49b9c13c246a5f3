import { readdir, readFile, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import { capLine, splitLines } from '../text.js';
import { compileFileGlob, type FileFilter } from './glob.js';
import { compileNamePattern, compilePattern } from './pattern.js';
import { MAX_RESULT_LINE_CHARS, MAX_SEARCH_FILE_BYTES, SKIPPED_NAMES, type Hit, type SearchRequest, type SearchSink } from './types.js';

/** Bytewise order of names, as ripgrep's `--sort path` uses. */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

interface WalkEntry {
  /** The path for results: the root as given joined with the path below it. */
  shown: string;
  /** Absolute path on this host. */
  full: string;
  name: string;
}

/**
 * Files below `full` in ripgrep's `--sort path` order, hidden ones included, `.git`,
 * `node_modules` and symbolic links left out.
 */
async function* walk(full: string, shown: string, cwd: string, filter: FileFilter, signal?: AbortSignal): AsyncGenerator<WalkEntry> {
  let entries;
  try {
    entries = await readdir(full, { withFileTypes: true });
  } catch {
    return; // unreadable folders are skipped, as ripgrep does with --no-messages
  }
  entries.sort((a, b) => compareNames(a.name, b.name));
  for (const entry of entries) {
    signal?.throwIfAborted();
    if (SKIPPED_NAMES.includes(entry.name)) continue;
    const childFull = posix.join(full, entry.name);
    const childShown = posix.join(shown, entry.name);
    const rel = relativeToCwd(cwd, childFull);
    if (entry.isDirectory()) {
      if (filter.excludesDir(entry.name, rel)) continue;
      yield* walk(childFull, childShown, cwd, filter, signal);
    } else if (entry.isFile()) {
      if (filter.accepts(entry.name, rel)) yield { shown: childShown, full: childFull, name: entry.name };
    }
  }
}

function relativeToCwd(cwd: string, full: string): string {
  const rel = posix.relative(cwd, full);
  return rel.startsWith('..') ? full : rel;
}

/** The hits of one file, with context lines attached. */
export function findHits(text: string, regex: RegExp, context: number): Hit[] {
  const lines = splitLines(text);
  const hits: Hit[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!regex.test(lines[i])) continue;
    const hit: Hit = { line: i + 1, content: capLine(lines[i], MAX_RESULT_LINE_CHARS) };
    if (context > 0) {
      hit.before = [];
      hit.after = [];
      for (let j = Math.max(0, i - context); j < i; j++) hit.before.push({ line: j + 1, content: capLine(lines[j], MAX_RESULT_LINE_CHARS) });
      for (let j = i + 1; j <= Math.min(lines.length - 1, i + context); j++) {
        hit.after.push({ line: j + 1, content: capLine(lines[j], MAX_RESULT_LINE_CHARS) });
      }
    }
    hits.push(hit);
  }
  return hits;
}

/**
 * The built-in search on this host's file system, in TypeScript: the same files, order and
 * lines as the ripgrep backend, for hosts without `rg`.
 */
export async function searchBuiltin(
  request: SearchRequest,
  where: { cwd: string; rootFull: string },
  sink: SearchSink,
  signal?: AbortSignal,
): Promise<void> {
  const filter = compileFileGlob(request.fileGlob);
  const rootShown = posix.normalize(request.root);
  const rootStat = await stat(where.rootFull);
  const files: AsyncIterable<WalkEntry> | WalkEntry[] = rootStat.isDirectory()
    ? walk(where.rootFull, rootShown, where.cwd, filter, signal)
    : [{ shown: rootShown, full: where.rootFull, name: posix.basename(where.rootFull) }];

  if (request.target === 'files') {
    const nameRegex = compileNamePattern(request.pattern);
    for await (const file of files) if (nameRegex.test(file.name)) sink.file(file.shown);
    return;
  }
  const regex = compilePattern(request.pattern);
  for await (const file of files) {
    let data: Buffer;
    try {
      if ((await stat(file.full)).size > MAX_SEARCH_FILE_BYTES) continue;
      data = await readFile(file.full);
    } catch {
      continue;
    }
    if (data.includes(0)) continue; // binary
    sink.matches(file.shown, findHits(data.toString('utf8'), regex, request.context));
  }
}
