import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { kernelArgv } from '../../../src/execute-code/kernel/index.js';
import { python, runKernelTests } from './helpers.js';

describe.runIf(runKernelTests)('the kernel lifeline', () => {
  it('kills only the runner, not the group, when the runner does not lead its group', async () => {
    // sh leads a fresh group (detached) and runs the runner in it as a plain member; if the
    // runner took the group down when its lifeline closes, sh would never print "sh lives".
    const [file, ...args] = kernelArgv(python ?? 'python3');
    const command = [file, ...args].map((word) => `'${word}'`).join(' ');
    const sh = spawn('sh', ['-c', `${command}; echo "sh lives after $?"`], { detached: true, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
    let out = '';
    sh.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const control = sh.stdio[3] as Readable;
    const lifeline = sh.stdio[4] as Writable;
    await once(control, 'data'); // the runner's ready frame: its lifeline watcher runs
    lifeline.destroy();
    const [code, signal] = (await once(sh, 'exit')) as [number | null, NodeJS.Signals | null];
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(out).toBe('sh lives after 137\n');
  });
});
