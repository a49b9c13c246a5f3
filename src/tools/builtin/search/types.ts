/** One search as the tool received it, after defaults. */
export interface SearchRequest {
  pattern: string;
  target: 'content' | 'files';
  /** The search root exactly as given; result paths start with it (normalized). */
  root: string;
  fileGlob: string | null;
  limit: number;
  offset: number;
  outputMode: 'content' | 'files_with_matches' | 'count';
  context: number;
}

/** A line next to a match. */
export interface ContextLine {
  line: number;
  content: string;
}

/** A matching line, with its neighbours when `context` > 0. */
export interface Hit {
  line: number;
  content: string;
  before?: ContextLine[];
  after?: ContextLine[];
}

/** Receives files in result order (tree order, names sorted bytewise in each folder). */
export interface SearchSink {
  /** A file with matching lines (content target), in line order. */
  matches(path: string, hits: Hit[]): void;
  /** A file whose name matched (files target). */
  file(path: string): void;
}

/** Longest line shown in a search result. */
export const MAX_RESULT_LINE_CHARS = 500;
/** Files bigger than this are not searched (both backends agree on it). */
export const MAX_SEARCH_FILE_BYTES = 50 * 1024 * 1024;
/** Folder names never searched. */
export const SKIPPED_NAMES: readonly string[] = ['.git', 'node_modules'];
