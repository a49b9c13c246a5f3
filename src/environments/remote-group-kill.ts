/**
 * The one shell text that ends a process group on a remote backend (SSH, Docker, a kernel
 * over polled files): SIGTERM to the group, up to `graceMs` for it to go (a script may trap
 * SIGTERM), then SIGKILL. `group` is a shell word that expands to the group id (`"$g"`, a
 * number). With `orLeader`, a group that cannot be signalled has its leader signalled instead
 * (a stream's shell that did not get to lead its group). It never fails: the caller adds its
 * cleanup and `exit 0`. Here, on this host, `process-group.ts` does the same with signals.
 */
export function remoteGroupKill(group: string, graceMs: number, options: { orLeader?: boolean } = {}): string {
  const rounds = Math.max(1, Math.ceil(graceMs / 50));
  return [
    `kill -TERM -- -${group} 2>/dev/null${options.orLeader ? ` || kill -TERM ${group} 2>/dev/null` : ''}`,
    `i=0; while kill -0 -- -${group} 2>/dev/null && [ $i -lt ${rounds} ]; do sleep 0.05; i=$((i+1)); done`,
    `kill -KILL -- -${group} 2>/dev/null`,
  ].join('; ');
}
