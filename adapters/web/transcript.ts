import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

  /** Threads, most recently active first. */
  listThreads(): WebThreadSummary[] {
    this.scan();
    return [...this.threads.entries()]
      .map(([id, state]) => ({ id, title: titleOf(state.entries), updatedAt: state.updatedAt }))
      .sort((a, b) => b.updatedAt - a.updatedAt || a.id.localeCompare(b.id));
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

  private file(id: string): string {
    return join(this.dir, `${id}.jsonl`);
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
    this.threads.set(id, state);
    return state;
  }

  private scan(): void {
    if (this.scanned) return;
    this.scanned = true;
    if (!existsSync(this.dir)) return;
    for (const name of readdirSync(this.dir)) {
      if (name.endsWith('.jsonl')) this.load(name.slice(0, -'.jsonl'.length));
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

function titleOf(entries: WebEntry[]): string {
  const first = entries.find((entry) => entry.kind === 'user');
  if (!first || first.kind !== 'user') return 'New thread';
  const line = first.text.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? line.slice(0, TITLE_CHARS - 1) + '…' : line || 'New thread';
}
