import { randomBytes } from 'node:crypto';

/*
 * The escapes a hostile cell tries so that something it starts outlives it, each tagged with a
 * marker no other process carries (the last argv word of a `python3 -c` sleeper), and the cell
 * that tries them all. Shared by no-leftovers.test.ts and its gateway stand-in
 * (fixtures/leftover-gateway.mjs).
 */

export const ESCAPES = ['setsid', 'double fork', 'start_new_session', 'terminal setsid -f', 'nohup &'] as const;
export type Escape = (typeof ESCAPES)[number];

/** A marker per escape: `hermes-leak-<escape>-<random>`. */
export function markers(): Record<Escape, string> {
  const id = randomBytes(5).toString('hex');
  return Object.fromEntries(ESCAPES.map((escape) => [escape, `hermes-leak-${escape.replace(/[^a-z]+/g, '')}-${id}`])) as Record<Escape, string>;
}

/**
 * A cell that starts one sleeper per escape, waits (inside the environment: its own /proc)
 * until the four it can see are alive, prints `ALIVE <markers>` and what the terminal command
 * saw (`UP` when its `setsid -f` sleeper ran), then runs `after`.
 */
export function escapingCell(mark: Record<Escape, string>, after: string): string {
  const sleeper = (m: string) => `python3 -c 'import time; time.sleep(300)' ${m} </dev/null >/dev/null 2>&1`;
  const seen = (m: string) => `${m.slice(0, -1)}[${m.slice(-1)}]`; // a grep pattern that does not match its own argv
  return [
    'import os, subprocess, time',
    'from hermes_tools import terminal',
    `os.system(${JSON.stringify(`setsid ${sleeper(mark.setsid)} &`)})`,
    'first = os.fork()',
    'if first == 0:',
    '    os.setsid()',
    '    if os.fork() == 0:',
    '        null = os.open(os.devnull, os.O_RDWR)',
    '        for fd in (0, 1, 2):',
    '            os.dup2(null, fd)',
    `        os.execvp("python3", ["python3", "-c", "import time; time.sleep(300)", ${JSON.stringify(mark['double fork'])}])`,
    '    os._exit(0)',
    'os.waitpid(first, 0)',
    `subprocess.Popen(["python3", "-c", "import time; time.sleep(300)", ${JSON.stringify(mark.start_new_session)}], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)`,
    `os.system(${JSON.stringify(`nohup ${sleeper(mark['nohup &'])} &`)})`,
    `t = terminal(${JSON.stringify(
      `setsid -f ${sleeper(mark['terminal setsid -f'])}; for i in $(seq 100); do grep -qa -- '${seen(mark['terminal setsid -f'])}' /proc/[0-9]*/cmdline 2>/dev/null && { echo UP; break; }; sleep 0.05; done`,
    )})`,
    `watched = ${JSON.stringify([mark.setsid, mark['double fork'], mark.start_new_session, mark['nohup &']])}`,
    'def alive(m):',
    '    for entry in os.listdir("/proc"):',
    '        try:',
    '            with open("/proc/%s/cmdline" % entry, "rb") as f:',
    '                if m.encode() in f.read().split(b"\\0"):',
    '                    return True',
    '        except OSError:',
    '            pass',
    '    return False',
    'deadline = time.time() + 30',
    'while time.time() < deadline and not all(alive(m) for m in watched):',
    '    time.sleep(0.05)',
    'print("ALIVE " + " ".join(m for m in watched if alive(m)), flush=True)',
    'print("TERMINAL " + t["output"].strip(), flush=True)',
    after,
  ].join('\n');
}
