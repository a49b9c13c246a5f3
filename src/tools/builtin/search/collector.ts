import type { Hit, SearchRequest, SearchSink } from './types.js';

/** A match in the result: where, which line, and what it says. */
export interface MatchResult {
  path: string;
  line: number;
  content: string;
  before?: Hit['before'];
  after?: Hit['after'];
}

/**
 * Counts every result and keeps only the page `[offset, offset + limit)`, so a search with
 * a million hits costs the memory of one page.
 */
export class ResultCollector implements SearchSink {
  private total = 0;
  private readonly matchesKept: MatchResult[] = [];
  private readonly filesKept: string[] = [];
  private readonly countsKept: Array<{ path: string; count: number }> = [];

  constructor(private readonly request: SearchRequest) {}

  private inPage(index: number): boolean {
    return index >= this.request.offset && index < this.request.offset + this.request.limit;
  }

  matches(path: string, hits: Hit[]): void {
    if (hits.length === 0) return;
    switch (this.request.outputMode) {
      case 'content':
        for (const hit of hits) {
          if (this.inPage(this.total)) this.matchesKept.push({ path, ...hit });
          this.total++;
        }
        return;
      case 'files_with_matches':
        if (this.inPage(this.total)) this.filesKept.push(path);
        this.total++;
        return;
      case 'count':
        if (this.inPage(this.total)) this.countsKept.push({ path, count: hits.length });
        this.total++;
        return;
    }
  }

  file(path: string): void {
    if (this.inPage(this.total)) this.filesKept.push(path);
    this.total++;
  }

  /** The tool's answer: the page under `matches`, `files` or `counts`, with `total_count` and `truncated`. */
  result(): Record<string, unknown> {
    const truncated = this.request.offset + this.request.limit < this.total;
    const page =
      this.request.target === 'files' || this.request.outputMode === 'files_with_matches'
        ? { files: this.filesKept }
        : this.request.outputMode === 'count'
          ? { counts: this.countsKept }
          : { matches: this.matchesKept };
    return { ...page, total_count: this.total, truncated };
  }
}
