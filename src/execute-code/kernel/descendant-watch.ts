import { spawn } from 'node:child_process';
import { closeSync, openSync, readSync, readdirSync } from 'node:fs';

/** Room for a children file or a stat line; a file that fills it is not trusted to be whole. */
const READ_BYTES = 4096;

/** One thread of a watched process: its stat (gone once the thread is) and its children file. */
interface WatchedTask {
  stat: number;
  children: number;
}

interface WatchedProcess {
  stat: number;
  threads: number;
  tasks: WatchedTask[];
}

/**
 * The after-cell check that a kernel's tree is what it was at ready, cheaply: descriptors of
 * the known processes' /proc files are opened once and re-read at offset 0 (one pread each, no
 * path walk, no directory read). It only says "unchanged" when it can prove it: every known
 * process and thread still there (a thread that ended fails its stat read, so one cannot be
 * swapped for a new one of the same count), the thread count as it was, and every child listed
 * a known process. Anything else — a new child, a new thread, a read that fails — is "not
 * proven", and the caller does the full walk (`newDescendants`), which decides. On a kernel
 * whose /proc files keep the snapshot taken at open (seen on a CI kernel), it never proves.
 */
export class DescendantWatch {
  readonly #processes: WatchedProcess[] = [];
  readonly #known: ReadonlySet<number>;
  readonly #buffer = Buffer.allocUnsafe(READ_BYTES);
  #closed = false;

  /** @param known the living tree at ready (the root included); a process that cannot be opened makes every check fail. */
  constructor(root: number, known: Iterable<number>) {
    this.#known = new Set([root, ...known]);
    if (!procRereadsFresh()) {
      this.#closed = true;
      return;
    }
    try {
      for (const pid of this.#known) this.#processes.push(this.#open(pid));
    } catch {
      this.close();
    }
  }

  /** True only when nothing can have been added to the tree since ready. */
  unchanged(): boolean {
    if (this.#closed) return false;
    try {
      for (const process of this.#processes) {
        if (threadCount(this.#read(process.stat)) !== process.threads) return false;
        for (const task of process.tasks) {
          this.#read(task.stat);
          for (const word of this.#read(task.children).split(' ')) if (word && !this.#known.has(Number(word))) return false;
        }
      }
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const process of this.#processes.splice(0)) {
      closeQuietly(process.stat);
      for (const task of process.tasks) {
        closeQuietly(task.stat);
        closeQuietly(task.children);
      }
    }
  }

  #open(pid: number): WatchedProcess {
    const stat = openSync(`/proc/${pid}/stat`, 'r');
    const process: WatchedProcess = { stat, threads: -1, tasks: [] };
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const task: WatchedTask = { stat: openSync(`/proc/${pid}/task/${tid}/stat`, 'r'), children: -1 };
        process.tasks.push(task);
        task.children = openSync(`/proc/${pid}/task/${tid}/children`, 'r');
      }
      process.threads = threadCount(this.#read(stat));
      if (process.threads !== process.tasks.length) throw new Error('the threads changed while the watch opened them');
      return process;
    } catch (error) {
      closeQuietly(stat);
      for (const task of process.tasks) {
        closeQuietly(task.stat);
        closeQuietly(task.children);
      }
      throw error;
    }
  }

  /** The whole file at offset 0; throws when the process or thread is gone or the file did not fit. */
  #read(fd: number): string {
    const size = readSync(fd, this.#buffer, 0, READ_BYTES, 0);
    if (size >= READ_BYTES) throw new Error('too long to trust');
    return this.#buffer.toString('latin1', 0, size);
  }
}

let rereadsFresh: boolean | undefined;

/**
 * Whether a re-read at offset 0 of an open /proc file shows what is there now (as Linux's seq
 * files do) and not the snapshot taken at open. Asked once per process, by the question the
 * watch relies on: a children file opened before a child is started must list it afterwards.
 * The child is this process's own, started and SIGKILLed at once; listed until reaped, which
 * happens on the event loop, after this synchronous check.
 */
export function procRereadsFresh(): boolean {
  if (rereadsFresh !== undefined) return rereadsFresh;
  const files: number[] = [];
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  const listing = (fd: number) => buffer.toString('latin1', 0, readSync(fd, buffer, 0, READ_BYTES, 0)).split(' ');
  try {
    for (const tid of readdirSync('/proc/self/task')) files.push(openSync(`/proc/self/task/${tid}/children`, 'r'));
    for (const fd of files) listing(fd);
    const child = spawn(process.execPath, ['--version'], { stdio: 'ignore' });
    child.on('error', () => undefined);
    const pid = child.pid === undefined ? undefined : String(child.pid);
    rereadsFresh = pid !== undefined && files.some((fd) => listing(fd).includes(pid));
    child.kill('SIGKILL');
  } catch {
    rereadsFresh = false;
  } finally {
    for (const fd of files) closeQuietly(fd);
  }
  return rereadsFresh;
}

/** num_threads, the 20th field of a stat line (the 18th after the command's closing parenthesis). */
function threadCount(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const count = Number(fields[17]);
  if (!Number.isInteger(count) || count < 1) throw new Error('unreadable stat line');
  return count;
}

function closeQuietly(fd: number): void {
  if (fd < 0) return;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
