import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { WebEntry, WebThreadSummary } from './types.js';

/** Thread ids are ours (hex) but arrive in URLs: anything else is refused before touching a file. */
const THREAD_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const TITLE_CHARS = 60;

/** True when `id` has the shape of a web thread id (safe as a file name). */
export function isThreadId(id: string): boolean {
  return THREAD_ID.test(id);
}

interface ThreadState {
  /** Entries in first-seen order; a later write with the same id replaces in place. */
  entries: WebEntry[];
  index: Map<string, number>;
  updatedAt: number;
  /** A title the user gave; else the first message names the thread. */
  title?: string;
}

/**
 * The web chat's own record of what each thread showed (messages, tool calls with their
 * output, notices), one JSON line per write in `<dir>/<thread id>.jsonl`. It is what the
 * page reloads after a restart; the model's history lives in the session store. Appending
 * keeps a crash from losing more than the line being written; a torn line is skipped.
 */
export class TranscriptStore {
  private readonly threads = new Map<string, ThreadState>();
  private scanned = false;

  constructor(readonly dir: string) {}

  /** Starts an empty thread and returns its id. */
  createThread(now = Date.now()): string {
    mkdirSync(this.dir, { recursive: true });
    let id: string;
    do id = randomBytes(6).toString('hex');
    while (existsSync(this.file(id)));
    writeFileSync(this.file(id), '');
    this.threads.set(id, { entries: [], index: new Map(), updatedAt: now });
    return id;
  }

  hasThread(id: string): boolean {
    return isThreadId(id) && (this.threads.has(id) || existsSync(this.file(id)));
  }

  /**
   * Threads with something in them, most recently active first; with `query`, only those
   * whose title or messages contain each of its words (case does not matter).
   */
  listThreads(query = ''): WebThreadSummary[] {
    this.scan();
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return [...this.threads.entries()]
      .filter(([, state]) => state.entries.length > 0)
      .filter(([, state]) => words.length === 0 || matches(state, words))
      .map(([id, state]) => ({ id, title: state.title ?? titleOf(state.entries), updatedAt: state.updatedAt }))
      .sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id));
  }

  /** The thread as the list shows it; undefined for an unknown thread. */
  summary(id: string): WebThreadSummary | undefined {
    const state = this.load(id);
    return state && { id, title: state.title ?? titleOf(state.entries), updatedAt: state.updatedAt };
  }

  /** Gives the thread a title of the user's own (kept beside its transcript). */
  rename(id: string, title: string): void {
    const state = this.load(id);
    if (!state) throw new Error(`web chat: no thread ${id}`);
    state.title = title.replace(/\s+/g, ' ').trim();
    writeFileSync(this.metaFile(id), JSON.stringify({ title: state.title }) + '\n');
  }

  /** Forgets the thread: its transcript and title go. */
  delete(id: string): void {
    if (!isThreadId(id)) return;
    this.threads.delete(id);
    rmSync(this.file(id), { force: true });
    rmSync(this.metaFile(id), { force: true });
  }

  /** The thread's entries in order; empty for an unknown thread. */
  entries(id: string): WebEntry[] {
    const state = this.load(id);
    return state ? [...state.entries] : [];
  }

  /** The entry with this id in the thread, if any. */
  entry(threadId: string, entryId: string): WebEntry | undefined {
    const state = this.load(threadId);
    const at = state?.index.get(entryId);
    return state && at !== undefined ? state.entries[at] : undefined;
  }

  /** Adds an entry, or replaces the one with the same id; creates the thread if needed. */
  put(threadId: string, entry: WebEntry): void {
    if (!isThreadId(threadId)) throw new Error(`web chat: refusing thread id ${JSON.stringify(threadId)}`);
    let state = this.load(threadId);
    if (!state) {
      mkdirSync(this.dir, { recursive: true });
      state = { entries: [], index: new Map(), updatedAt: entry.at };
      this.threads.set(threadId, state);
    }
    apply(state, entry);
    state.updatedAt = Math.max(state.updatedAt, Date.now());
    appendFileSync(this.file(threadId), JSON.stringify(entry) + '\n');
  }

  /**
   * Puts a new entry just before the entry `beforeId` (a notice that belongs to a turn under
   * which a later message already sits); at the end when there is no such entry. The thread's
   * file is rewritten in the new order (beside it, then renamed), so a reload shows the same.
   */
  putBefore(threadId: string, entry: WebEntry, beforeId: string): void {
    const state = this.load(threadId);
    const at = state?.index.get(beforeId);
    if (!state || at === undefined || state.index.has(entry.id)) return this.put(threadId, entry);
    state.entries.splice(at, 0, entry);
    state.index = new Map(state.entries.map((e, i) => [e.id, i]));
    state.updatedAt = Math.max(state.updatedAt, Date.now());
    const file = this.file(threadId);
    writeFileSync(`${file}.tmp`, state.entries.map((e) => JSON.stringify(e) + '\n').join(''));
    renameSync(`${file}.tmp`, file);
  }

  private file(id: string): string {
    return join(this.dir, `${id}.jsonl`);
  }

  private metaFile(id: string): string {
    return join(this.dir, `${id}.meta.json`);
  }

  private load(id: string): ThreadState | undefined {
    if (!isThreadId(id)) return undefined;
    const known = this.threads.get(id);
    if (known) return known;
    const file = this.file(id);
    if (!existsSync(file)) return undefined;
    const state: ThreadState = { entries: [], index: new Map(), updatedAt: statSync(file).mtimeMs };
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const entry = parseEntry(line);
      if (entry) apply(state, entry);
    }
    // Written by an earlier run: a call still "running" there never returned, and a request
    // still waiting was never answered (the gateway stopped).
    state.entries = state.entries.map((entry) => {
      if (entry.kind === 'tool' && entry.status === 'running') {
        return { ...entry, status: 'interrupted', error: 'the gateway stopped before this call returned' };
      }
      if (entry.kind === 'approval' && entry.state === 'waiting') {
        return { ...entry, state: 'settled', text: `${entry.text}\n\n⏹ Cancelled: the gateway stopped before an answer.` };
      }
      return entry;
    });
    state.title = readTitle(this.metaFile(id));
    this.threads.set(id, state);
    return state;
  }

  /** Loads every thread once; threads an earlier run left empty (opened, never used) are removed. */
  private scan(): void {
    if (this.scanned) return;
    this.scanned = true;
    if (!existsSync(this.dir)) return;
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const id = name.slice(0, -'.jsonl'.length);
      if (this.threads.has(id)) continue;
      const state = this.load(id);
      if (state && state.entries.length === 0) this.delete(id);
    }
  }
}

function apply(state: ThreadState, entry: WebEntry): void {
  const at = state.index.get(entry.id);
  if (at === undefined) {
    state.index.set(entry.id, state.entries.length);
    state.entries.push(entry);
  } else {
    state.entries[at] = entry;
  }
}

function parseEntry(line: string): WebEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const value = JSON.parse(line) as Partial<WebEntry>;
    if (typeof value.id === 'string' && typeof value.kind === 'string' && typeof value.at === 'number') {
      return value as WebEntry;
    }
  } catch {
    // A line torn by a crash mid-write: the rest of the thread is still good.
  }
  return undefined;
}

function readTitle(file: string): string | undefined {
  try {
    const { title } = JSON.parse(readFileSync(file, 'utf8')) as { title?: unknown };
    return typeof title === 'string' && title.trim() ? title : undefined;
  } catch {
    return undefined;
  }
}

/** True when the title or a message's text contains every word. */
function matches(state: ThreadState, words: string[]): boolean {
  const texts = [state.title ?? '', ...state.entries.map((entry) => (entry.kind === 'user' || entry.kind === 'assistant' ? entry.text : ''))];
  const haystack = texts.join('\n').toLowerCase();
  return words.every((word) => haystack.includes(word));
}

function titleOf(entries: WebEntry[]): string {
  const first = entries.find((entry) => entry.kind === 'user');
  if (!first || first.kind !== 'user') return 'New thread';
  const line = first.text.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? line.slice(0, TITLE_CHARS - 1) + '…' : line || 'New thread';
}
