import { randomBytes } from 'node:crypto';
import { execa } from 'execa';
import type { Logger } from '../../shared/logger.js';
import type { EnvironmentStream, StreamExit } from '../types.js';
import { shellQuote } from '../../shared/shell-quote.js';
import { remoteGroupKill } from '../remote-group-kill.js';
import { bootstrapInput, pgidFile, preludeLines } from './remote-command.js';
import type { ClientCommand, ClientRun } from './remote-shell.js';

/** What a client-program backend (ssh, docker exec) gives a stream. */
export interface StreamClient {
  /** The local argv that runs the fixed BOOTSTRAP on the backend with stdin attached. */
  client: ClientCommand;
  /** Runs a short control command on the backend (the last-resort kill). */
  control(script: string, timeoutMs: number): Promise<ClientRun>;
  /** Names the backend in messages. */
  where: string;
  /** Milliseconds between SIGTERM and SIGKILL. */
  graceMs: number;
  logger?: Logger;
}

export interface StreamTarget {
  command: string;
  /** The working folder on the backend (already resolved). */
  cwd: string;
  /** Every variable the command gets (already reduced to what is worth sending). */
  env: Record<string, string>;
  /** `ulimit` lines for the stream's command (see ulimitLines). */
  limits?: readonly string[];
  signal?: AbortSignal;
}

/**
 * The script the bootstrap evaluates for a stream: the same prelude as a command (`cd`, the
 * variable scrubbing, the sent variables), the shell's pid (its process group's id: ssh and
 * `docker exec` start it as a session leader) recorded under `id` for the last-resort kill,
 * then `command` in the foreground with the session's stdin, stdout and stderr: nothing
 * merged, nothing added.
 */
export function streamScript(options: { id: string; command: string; cwd: string; env: Record<string, string>; where: string; limits?: readonly string[] }): string {
  const file = pgidFile(options.id);
  return [
    ...preludeLines(options),
    `echo "$$" > ${file}`,
    // A trap, not an ignore: the command keeps SIGTERM's default; the file goes when the shell does.
    `trap 'rm -f ${file}' EXIT`,
    `trap 'exit 143' TERM`,
    `bash --noprofile --norc -c ${shellQuote(options.command)}`,
    '',
  ].join('\n');
}

/** SIGTERM to the stream's group, up to `graceMs` for it to go, then SIGKILL. */
export function streamKillScript(id: string, graceMs: number): string {
  const file = pgidFile(id);
  return [
    `g=$(cat ${file} 2>/dev/null) || exit 0; [ -n "$g" ] || exit 0`,
    remoteGroupKill('"$g"', graceMs, { orLeader: true }),
    `rm -f ${file}; exit 0`,
  ].join('; ');
}

/**
 * Starts `target.command` on the backend through the client with its stdio attached: one
 * client process (one SSH session over the shared connection, one `docker exec -i`) for the
 * stream's whole life. The command's stdin is the client's, after the bootstrap's own bytes.
 */
export function openClientStream(deps: StreamClient, target: StreamTarget): EnvironmentStream {
  const id = randomBytes(8).toString('hex');
  const script = streamScript({ id, command: target.command, cwd: target.cwd, env: target.env, where: deps.where, limits: target.limits });
  const child = execa(deps.client.file, deps.client.args, {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    stripFinalNewline: false,
  });
  // The streams' users see errors as the end of the stream; an unhandled one must not crash the gateway.
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on('error', () => undefined);
  child.stdin?.write(bootstrapInput(script));
  const exited: Promise<StreamExit> = child.then(
    (result) => ({ code: result.exitCode ?? null, signal: result.signal ?? null }),
    () => ({ code: null, signal: null }),
  );
  let killing: Promise<void> | undefined;
  const kill = (): Promise<void> => {
    killing ??= (async () => {
      const run = await deps.control(streamKillScript(id, deps.graceMs), deps.graceMs + 15_000).catch(() => undefined);
      if (run && run.exitCode !== 0) deps.logger?.warn({ id, stderr: run.stderr.trim() }, `could not kill a stream on the ${deps.where}`);
      // The client ends once the far side is gone; a dead link would keep it.
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    })();
    return killing;
  };
  if (target.signal) {
    const onAbort = () => void kill();
    if (target.signal.aborted) onAbort();
    else {
      target.signal.addEventListener('abort', onAbort, { once: true });
      void exited.then(() => target.signal?.removeEventListener('abort', onAbort));
    }
  }
  const handles = [child, child.stdin, child.stdout, child.stderr] as const;
  return {
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr!,
    exited,
    kill,
    unref: () => handles.forEach((handle) => refHandle(handle, false)),
    ref: () => handles.forEach((handle) => refHandle(handle, true)),
  };
}

/** Pipes are sockets underneath, with ref/unref; other streams have neither. */
function refHandle(handle: object | null, on: boolean): void {
  const method: unknown = handle && Reflect.get(handle, on ? 'ref' : 'unref');
  if (typeof method === 'function') method.call(handle);
}
