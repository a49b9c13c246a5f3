import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { openSync, readFileSync, readSync, closeSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { descendants } from '../../../src/environments/supervisor.js';
import { DescendantWatch, procRereadsFresh } from '../../../src/execute-code/kernel/descendant-watch.js';

/** A Python process that does what each stdin line says and answers "ok" (a stand-in for a kernel whose cell forks or starts threads). */
const PUPPET = String.raw`
import os, subprocess, sys, threading, time
held = []
for line in sys.stdin:
    word = line.strip()
    if word == "fork":
        held.append(subprocess.Popen(["sleep", "60"]))
    elif word == "reap":
        for child in held:
            child.kill(); child.wait()
        held.clear()
    elif word == "thread":
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
    print("ok", flush=True)
`;

const started: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

async function puppet(): Promise<{ pid: number; tell(word: string): Promise<void> }> {
  const child = spawn('python3', ['-c', PUPPET]);
  started.push(child);
  await once(child, 'spawn');
  const tell = async (word: string) => {
    child.stdin.write(`${word}\n`);
    await once(child.stdout, 'data');
  };
  await tell('hello');
  return { pid: child.pid!, tell };
}

describe.runIf(process.platform === 'linux')('DescendantWatch (real processes, real /proc)', () => {
  // Where the kernel's /proc re-reads are stale snapshots the watch proves nothing: every "unchanged" is false there.
  const proves = process.platform === 'linux' && procRereadsFresh();

  it('knows whether this kernel re-reads an open /proc file fresh, as a second look at a forking process shows', async () => {
    const kernel = await puppet();
    const fd = openSync(`/proc/${kernel.pid}/task/${kernel.pid}/children`, 'r');
    const buffer = Buffer.alloc(4096);
    const reread = () => buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0)).trim();
    expect(reread()).toBe('');
    await kernel.tell('fork');
    const listed = readFileSync(`/proc/${kernel.pid}/task/${kernel.pid}/children`, 'latin1').trim();
    expect(listed).not.toBe('');
    expect(procRereadsFresh()).toBe(reread() === listed);
    closeSync(fd);
  });

  it('proves an unchanged tree unchanged, again and again', async () => {
    const kernel = await puppet();
    const watch = new DescendantWatch(kernel.pid, descendants(kernel.pid));
    for (let i = 0; i < 5; i++) expect(watch.unchanged()).toBe(proves);
    watch.close();
  });

  it('cannot prove it once the process has a new child, and can again after it is gone', async () => {
    const kernel = await puppet();
    const watch = new DescendantWatch(kernel.pid, descendants(kernel.pid));
    await kernel.tell('fork');
    expect(watch.unchanged()).toBe(false);
    await kernel.tell('reap');
    expect(watch.unchanged()).toBe(proves);
    watch.close();
  });

  it('cannot prove it once the process has a new thread (which could fork where the watch does not look)', async () => {
    const kernel = await puppet();
    const watch = new DescendantWatch(kernel.pid, descendants(kernel.pid));
    await kernel.tell('thread');
    expect(watch.unchanged()).toBe(false);
    watch.close();
    // Watched as it is now, the thread's own children file is read too.
    const again = new DescendantWatch(kernel.pid, descendants(kernel.pid));
    expect(again.unchanged()).toBe(proves);
    await kernel.tell('fork');
    expect(again.unchanged()).toBe(false);
    again.close();
  });

  it('cannot prove it once a watched process is gone, nor after close', async () => {
    const kernel = await puppet();
    const watch = new DescendantWatch(kernel.pid, descendants(kernel.pid));
    const child = started[0];
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(watch.unchanged()).toBe(false);
    watch.close();
    expect(watch.unchanged()).toBe(false);
  });
});
