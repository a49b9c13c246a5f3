import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { packageRoot } from '../shared/package-root.js';
import { findExecutable } from './which.js';

/*
 * hermes_supervisor.py (its docstring is the reference) runs a command as a child subreaper's
 * child, so nothing the command starts — setsid, a double fork, start_new_session=True — leaves
 * its tree, and kills that tree when the command ends, when the gateway terminates it, and when
 * the gateway dies (its control socket closes). The kill itself lives in one place,
 * hermes_process_tree.py, which the remote stream runner and remote commands use as well.
 */

/** The Python files, in the package (they ship in `src/execute-code/python`, beside the kernel runner). */
const PYTHON_DIR = (): string => join(packageRoot(), 'src', 'execute-code', 'python');

export const supervisorPath = (): string => join(PYTHON_DIR(), 'hermes_supervisor.py');

let remoteText: string | undefined;

/** hermes_process_tree.py and hermes_supervisor.py as one text, for `python3 -c` on a remote backend. */
export function supervisorText(): string {
  remoteText ??= ['hermes_process_tree.py', 'hermes_supervisor.py'].map((name) => readFileSync(join(PYTHON_DIR(), name), 'utf8')).join('\n');
  return remoteText;
}

/** The text of hermes_process_tree.py, for the remote stream runner. */
export function processTreeText(): string {
  return readFileSync(join(PYTHON_DIR(), 'hermes_process_tree.py'), 'utf8');
}

/** The python3 on `path` that runs the supervisor on this host, or undefined (then commands run without one). */
export function supervisorPython(path: string | undefined): string | undefined {
  return findExecutable('python3', path ?? '/usr/local/bin:/usr/bin:/bin');
}

/** The argv that runs `file args` under the supervisor; `controlFd` is the socket the gateway holds (or none). */
export function supervisedArgv(python: string, controlFd: number | undefined, graceMs: number, file: string, args: readonly string[]): string[] {
  return [python, '-I', '-S', supervisorPath(), controlFd === undefined ? '-' : String(controlFd), String(Math.max(0, Math.round(graceMs))), '--', file, ...args];
}

/** The children of every thread of `pid`: one read of /proc/<pid>/task/<tid>/children per thread. */
function children(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const tid of tasks) {
    try {
      for (const word of readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').split(' ')) if (word) found.push(Number(word));
    } catch {
      // the thread ended while we looked
    }
  }
  return found;
}

function living(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state !== 'Z' && state !== 'X' && state !== '';
  } catch {
    return false;
  }
}

/**
 * Living descendants of `root` not in `known`. With nothing new this costs the reads of the
 * known processes' children files (no scan of /proc).
 */
export function newDescendants(root: number, known: ReadonlySet<number>): number[] {
  const found: number[] = [];
  const todo = children(root);
  while (todo.length > 0) {
    const pid = todo.pop()!;
    todo.push(...children(pid));
    if (!known.has(pid) && living(pid)) found.push(pid);
  }
  return found;
}

/** Every living descendant of `root`. */
export const descendants = (root: number): number[] => newDescendants(root, new Set());

/**
 * Asks the supervisor on `control` to kill every descendant but `keep`; resolves when it says
 * it is done, or after `timeoutMs` (a supervisor that does not answer is dead or stuck: the
 * caller's kill of the group follows).
 */
export function sweepThrough(control: Socket, keep: Iterable<number>, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let got = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      control.off('data', onData);
      control.off('close', onClose);
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      got += chunk.toString('latin1');
      if (got.includes('\n')) done(got.startsWith('D'));
    };
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    control.on('data', onData);
    control.once('close', onClose);
    control.write(`S ${[...keep].join(' ')}\n`);
  });
}
