import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { WebEntry, WebThreadSummary } from './types.js';

/** Thread ids are ours (hex) but arrive in URLs: anything else is refused before touching a file. */
const THREAD_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const TITLE_CHARS = 60;
/** Shared by several instances, an empty thread is removed only once nobody has touched it for this long. */
const SHARED_EMPTY_AGE_MS = 60 * 60_000;

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
  /** Shared: the file as last read (inode, bytes taken in), and the title file's stamp. */
  seen?: { ino: number; size: number; meta: string; stale: boolean };
}

/**
 * Several gateway instances write the same folder (one HERMES_HOME): the store then reads
 * what others appended at each look, and a call still `running` is shown as stopped only
 * while no instance runs a turn in its thread.
 */
export interface TranscriptSharing {
  /** True while a turn runs in the thread on any instance. */
  turnRunning(threadId: string): boolean;
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

  /**
   * With `sharing`, every write is an append (other instances append to the same files) and
   * every read first takes in what the file gained since; without it the threads are read
   * once and this store is their only writer.
   */
  constructor(
    readonly dir: string,
    private readonly sharing?: TranscriptSharing,
  ) {}

  /** Starts an empty thread and returns its id. */
  createThread(now = Date.now()): string {
    mkdirSync(this.dir, { recursive: true });
    let id: string;
    do id = randomBytes(6).toString('hex');
    while (existsSync(this.file(id)));
    writeFileSync(this.file(id), '');
    const seen = this.sharing ? { ino: statSync(this.file(id)).ino, size: 0, meta: '', stale: false } : undefined;
    this.threads.set(id, { entries: [], index: new Map(), updatedAt: now, ...(seen ? { seen } : {}) });
    return id;
  }

  hasThread(id: string): boolean {
    // Shared: another instance may have deleted it.
    return isThreadId(id) && ((!this.sharing && this.threads.has(id)) || existsSync(this.file(id)));
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
    // Beside it, then renamed: a reader (another instance) never sees half a title.
    const meta = this.metaFile(id);
    writeFileSync(`${meta}.${process.pid}.tmp`, JSON.stringify({ title: state.title }) + '\n');
    renameSync(`${meta}.${process.pid}.tmp`, meta);
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
    if (!state) return [];
    // Shared: what a turn left running is stale only once no instance runs one in the thread.
    return this.sharing && !this.sharing.turnRunning(id) ? settled(state.entries) : [...state.entries];
  }

  /** The id of the thread's last entry, if it has one. */
  lastEntryId(id: string): string | undefined {
    return this.load(id)?.entries.at(-1)?.id;
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
    this.write(threadId, entry);
  }

  /**
   * Puts a new entry just before the entry `beforeId` (a notice that belongs to a turn under
   * which a later message already sits); at the end when there is no such entry. The line
   * appended names `beforeId`, so a reload (or another instance) places it the same way.
   */
  putBefore(threadId: string, entry: WebEntry, beforeId: string): void {
    const state = this.load(threadId);
    if (!state || !state.index.has(beforeId) || state.index.has(entry.id)) return this.put(threadId, entry);
    this.write(threadId, entry, beforeId);
  }

  private write(threadId: string, entry: WebEntry, before?: string): void {
    let state = this.load(threadId);
    if (!state) {
      mkdirSync(this.dir, { recursive: true });
      state = { entries: [], index: new Map(), updatedAt: entry.at, ...(this.sharing ? { seen: { ino: -1, size: 0, meta: '', stale: false } } : {}) };
      this.threads.set(threadId, state);
    }
    apply(state, entry, before);
    state.updatedAt = Math.max(state.updatedAt, Date.now());
    const line = JSON.stringify(before === undefined ? entry : { before, entry }) + '\n';
    const file = this.file(threadId);
    appendFileSync(file, line);
    if (state.seen) tookOwnLine(state.seen, file, Buffer.byteLength(line));
  }

  private file(id: string): string {
    return join(this.dir, `${id}.jsonl`);
  }

  private metaFile(id: string): string {
    return join(this.dir, `${id}.meta.json`);
  }

  private load(id: string): ThreadState | undefined {
    if (!isThreadId(id)) return undefined;
    if (this.sharing) return this.refresh(id);
    const known = this.threads.get(id);
    if (known) return known;
    const file = this.file(id);
    if (!existsSync(file)) return undefined;
    const state: ThreadState = { entries: [], index: new Map(), updatedAt: statSync(file).mtimeMs };
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const parsed = parseLine(line);
      if (parsed) apply(state, parsed.entry, parsed.before);
    }
    // Written by an earlier run: a call still "running" there never returned, and a request
    // still waiting was never answered (the gateway stopped).
    state.entries = settled(state.entries);
    state.title = readTitle(this.metaFile(id));
    this.threads.set(id, state);
    return state;
  }

  /**
   * Shared: the thread with what its file gained since the last look (others' appends read
   * from where this store stopped); read whole again when the file was replaced, shrank, or
   * this store's own append landed behind another's (so the order is the file's).
   */
  private refresh(id: string): ThreadState | undefined {
    const file = this.file(id);
    let stat: { ino: number; size: number; mtimeMs: number };
    try {
      stat = statSync(file);
    } catch {
      this.threads.delete(id); // deleted, here or by another instance
      return undefined;
    }
    let state = this.threads.get(id);
    let taken = state?.seen;
    if (!state || !taken || taken.stale || taken.ino !== stat.ino || stat.size < taken.size) {
      const title = state?.title;
      taken = { ino: stat.ino, size: 0, meta: '', stale: false };
      state = { entries: [], index: new Map(), updatedAt: stat.mtimeMs, seen: taken, ...(title ? { title } : {}) };
      this.threads.set(id, state);
    }
    if (stat.size > taken.size) {
      for (const { entry, before } of readLines(file, taken, stat.size)) apply(state, entry, before);
      state.updatedAt = Math.max(state.updatedAt, stat.mtimeMs);
    }
    const meta = metaStamp(this.metaFile(id));
    if (meta !== taken.meta) {
      taken.meta = meta;
      state.title = meta ? readTitle(this.metaFile(id)) : undefined;
    }
    return state;
  }

  /**
   * Loads every thread once; threads an earlier run left empty (opened, never used) are
   * removed. Shared: the folder is read at every list (others make and delete threads), and
   * an empty thread goes only once nobody touched it for an hour (another page may be about to use it).
   */
  private scan(): void {
    if (this.scanned && !this.sharing) return;
    const first = !this.scanned;
    this.scanned = true;
    if (!existsSync(this.dir)) return;
    const present = new Set<string>();
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.jsonl')) continue;
      const id = name.slice(0, -'.jsonl'.length);
      present.add(id);
      if (this.threads.has(id) && !this.sharing) continue;
      const state = this.load(id);
      if (!state || state.entries.length > 0 || !first) continue;
      if (!this.sharing || Date.now() - state.updatedAt > SHARED_EMPTY_AGE_MS) this.delete(id);
    }
    if (this.sharing) for (const id of this.threads.keys()) if (!present.has(id)) this.threads.delete(id);
  }
}

/** `before`: the id of the entry a new entry goes in front of (else it goes last). */
function apply(state: ThreadState, entry: WebEntry, before?: string): void {
  const at = state.index.get(entry.id);
  if (at !== undefined) {
    state.entries[at] = entry;
    return;
  }
  const place = before === undefined ? undefined : state.index.get(before);
  if (place === undefined) {
    state.index.set(entry.id, state.entries.length);
    state.entries.push(entry);
    return;
  }
  state.entries.splice(place, 0, entry);
  state.index = new Map(state.entries.map((e, i) => [e.id, i]));
}

/**
 * Left by a run that stopped: a call still "running" never returned, and a request still
 * waiting was never answered.
 */
function settled(entries: WebEntry[]): WebEntry[] {
  return entries.map((entry) => {
    if (entry.kind === 'tool' && entry.status === 'running') {
      return { ...entry, status: 'interrupted', error: 'the gateway stopped before this call returned' };
    }
    if (entry.kind === 'approval' && entry.state === 'waiting') {
      return { ...entry, state: 'settled', text: `${entry.text}\n\n⏹ Cancelled: the gateway stopped before an answer.` };
    }
    return entry;
  });
}

/** A line: an entry, or `{before, entry}` for one placed in front of another. */
function parseLine(line: string): { entry: WebEntry; before?: string } | undefined {
  if (!line.trim()) return undefined;
  try {
    const value = JSON.parse(line) as { before?: unknown; entry?: unknown };
    if (typeof value.before === 'string' && isEntry(value.entry)) return { entry: value.entry, before: value.before };
    if (isEntry(value)) return { entry: value };
  } catch {
    // A line torn by a crash mid-write: the rest of the thread is still good.
  }
  return undefined;
}

function isEntry(value: unknown): value is WebEntry {
  if (typeof value !== 'object' || value === null) return false;
  const { id, kind, at } = value as Partial<Record<keyof WebEntry, unknown>>;
  return typeof id === 'string' && typeof kind === 'string' && typeof at === 'number';
}

/**
 * The whole lines between `seen.size` and `size`, moving `seen.size` past them; a line still
 * being written (no newline yet) is left for the next look.
 */
function readLines(file: string, seen: { size: number }, size: number): Array<{ entry: WebEntry; before?: string }> {
  const buffer = Buffer.alloc(size - seen.size);
  const fd = openSync(file, 'r');
  let got = 0;
  try {
    while (got < buffer.length) {
      const n = readSync(fd, buffer, got, buffer.length - got, seen.size + got);
      if (n === 0) break;
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  const end = got > 0 ? buffer.lastIndexOf(0x0a, got - 1) : -1;
  if (end < 0) return [];
  seen.size += end + 1;
  return buffer
    .subarray(0, end)
    .toString('utf8')
    .split('\n')
    .map(parseLine)
    .filter((parsed) => parsed !== undefined);
}

/**
 * After this store appended `bytes`: when the file grew by exactly that, nobody else wrote
 * since the last look and the line is taken in; else the next look reads the file whole.
 */
function tookOwnLine(seen: NonNullable<ThreadState['seen']>, file: string, bytes: number): void {
  const stat = statSync(file);
  if (seen.ino === -1 && stat.size === bytes) seen.ino = stat.ino;
  if (stat.ino === seen.ino && stat.size === seen.size + bytes) seen.size = stat.size;
  else seen.stale = true;
}

/** Changes when the title file is replaced or removed ('' when there is none). */
function metaStamp(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
  } catch {
    return '';
  }
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
