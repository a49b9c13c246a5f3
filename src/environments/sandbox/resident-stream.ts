import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import type { EnvironmentStream, HostCommand, StreamExit } from '../types.js';
import { signalGroup } from '../process-group.js';

/** Milliseconds between SIGTERM and SIGKILL when a resident process is killed. */
const KILL_GRACE_MS = 1000;

/**
 * Starts a host command (a bubblewrap sandbox) with its three pipes attached, as the leader
 * of its own process group, for a process that lives beside the environment (the file
 * helper). bubblewrap's --die-with-parent ends it with the gateway, and its PID namespace
 * takes everything inside with it; `kill()` ends it with the environment.
 */
export function residentStream(command: HostCommand): EnvironmentStream {
  const child = spawn(command.file, command.args, { cwd: command.cwd, env: command.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<StreamExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: 127, signal: null }));
  });
  const pipes = [child.stdin, child.stdout, child.stderr];
  const kill = async (): Promise<void> => {
    const pid = child.pid;
    if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    signalGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    kill,
    // Pipes are sockets in Node: they, not only the child, keep the event loop alive.
    unref: () => {
      child.unref();
      for (const pipe of pipes) if (pipe instanceof Socket) pipe.unref();
    },
    ref: () => {
      child.ref();
      for (const pipe of pipes) if (pipe instanceof Socket) pipe.ref();
    },
  };
}
