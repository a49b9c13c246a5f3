import type { ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A server a test started on 127.0.0.1, its working folder, and how to end it (and remove the folder). */
export interface LoopbackServer {
  host: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
}

/** Throws the reason a server cannot start here (what `unavailable` says), if any. */
export function requireAvailable(unavailable: () => string | undefined): void {
  const why = unavailable();
  if (why) throw new Error(why);
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it; we close it at once). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Waits until something accepts connections on 127.0.0.1:`port`; throws when `child` (named
 * `name` in the error) exits first or nothing listens within `timeoutMs`.
 */
export async function waitForPort(port: number, child: ChildProcess, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`${name} did not listen on ${port} within ${timeoutMs} ms`);
}

/** The last 4000 characters `child` wrote to its piped stdout and stderr, for error messages. */
export function outputTail(child: ChildProcess): () => string {
  let said = '';
  const keep = (chunk: Buffer) => (said = (said + chunk.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => said;
}

/**
 * The reason a group of tests skips, printed once, or undefined when they run. Under CI=true
 * nothing skips: `unavailable` is not even asked, and the tests fail on what is missing.
 */
export function skipReasonOutsideCi(what: string, unavailable: () => string | undefined): string | undefined {
  const missing = process.env.CI === 'true' ? undefined : unavailable();
  if (missing) console.warn(`${what} cannot run here: ${missing}`);
  return missing;
}
