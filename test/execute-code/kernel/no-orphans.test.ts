import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processAlive, python, runKernelTests, waitGone } from './helpers.js';

const host = fileURLToPath(new URL('./fixtures/kernel-host.mjs', import.meta.url));
const loader = fileURLToPath(new URL('./fixtures/register-ts.mjs', import.meta.url));

describe.runIf(runKernelTests)('session kernels without their host', () => {
  it('exit with their children within 5 s when the host Node process is SIGKILLed (an ended cell\'s child is gone already)', async () => {
    const child = spawn(process.execPath, ['--import', loader, host, python ?? 'python3'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = once(child, 'exit');
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => out.includes('\n') && resolve());
      child.once('exit', (code) => reject(new Error(`the host exited early (${code}): ${out}`)));
    });
    const { pids } = JSON.parse(out) as { pids: number[] };
    expect(pids).toHaveLength(4);
    // The idle kernel's child was its ended cell's: the supervisor killed it with the cell.
    expect(pids.map(processAlive)).toEqual([true, false, true, true]);
    child.kill('SIGKILL');
    await exited;
    const gone = await Promise.all(pids.map((pid) => waitGone(pid, 5000)));
    expect(gone).toEqual([true, true, true, true]);
  }, 90_000); // the host transpiles the sources with TypeScript at start, slow on a busy machine
});
