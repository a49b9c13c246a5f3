/**
 * The shell text that runs a command on a remote backend (SSH, Docker) as the leader of its
 * own process group, with a scrubbed environment, in a working folder. Only the fixed
 * BOOTSTRAP ever appears on a command line; everything else (the command, the working
 * folder, the variables) reaches the remote shell on stdin, so no value of the caller's is
 * visible in `ps` on either host.
 */
import { shellQuote } from '../../shared/shell-quote.js';
import { remoteGroupKill } from '../remote-group-kill.js';
import { supervisorText } from '../supervisor.js';

/**
 * The remote command line: reads a byte count, then that many bytes of script, and runs it.
 * What follows on stdin is the command's own stdin. `head -c` reads no further than asked.
 */
export const BOOTSTRAP = 'IFS= read -r n || exit 125; s=$(head -c "$n"); eval "$s"';

/** Where a command's process group id is recorded on the remote side. */
export const pgidFile = (id: string): string => `/tmp/.hermes-pg-${id}`;

/** Variables of the remote login the command keeps; everything else comes from the gateway. */
const REMOTE_KEPT = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR'];

export interface RemoteScriptOptions {
  /** Random id naming the pgid file, so the gateway can kill this command's group later. */
  id: string;
  command: string;
  cwd: string;
  env: Record<string, string>;
  /** Where the error message says the folder is missing (`ssh backend (user@host)`). */
  where: string;
  /** Milliseconds the supervisor gives the command's tree between SIGTERM and its own SIGKILL (default 5000). */
  graceMs?: number;
  /** Run the command under the supervisor (default); false lets what it detaches run on (ExecuteOptions.leaveDetached). */
  supervise?: boolean;
  /** `ulimit` lines run after the prelude (terminal.limits on SSH; see ulimitLines). */
  limits?: readonly string[];
  /**
   * The command has no stdin of its own: it reads /dev/null, and the supervisor holds the
   * client's stdin as its lifeline (the gateway keeps it open while the command runs; when the
   * gateway dies, even by SIGKILL, it closes and the supervisor kills the whole tree).
   */
  stdinLifeline?: boolean;
}

const SUPERVISOR_END = 'HERMES_SUPERVISOR_END';

/**
 * The lines every remote script starts with (a command's and a stream's): `cd` to the working
 * folder (or say it is missing, exit 126), drop every exported variable but the remote's
 * PATH/HOME/USER/LOGNAME/SHELL/TMPDIR, export the sent ones, set the limits. Builtins only (no exec with the
 * values in argv): the values never show in `ps`.
 */
export function preludeLines(options: { cwd: string; env: Record<string, string>; where: string; limits?: readonly string[] }): string[] {
  const sent = Object.entries(options.env)
    .filter(([name]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    .map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  const missing = shellQuote(`hermes: the working folder ${options.cwd} does not exist on the ${options.where}`);
  return [
    `cd -- ${shellQuote(options.cwd)} 2>/dev/null || { echo ${missing} >&2; exit 126; }`,
    `for v in $(compgen -e); do case "$v" in ${REMOTE_KEPT.join('|')}) ;; *) unset "$v" 2>/dev/null ;; esac; done`,
    ...sent,
    ...(options.limits ?? []),
  ];
}

/**
 * The script the bootstrap evaluates: the prelude, then `setsid` in the background so its
 * pid (which is its process group id: a background job of a non-interactive shell is not a
 * group leader, so setsid does not fork) can be recorded; then wait, kill stragglers, clean up.
 * Where the backend has python3 the command runs under hermes_supervisor.py (its text comes in
 * this script, on stdin), so what it leaves behind outside its group (`setsid -f`, a double
 * fork) is killed when it ends or is terminated too, and (stdinLifeline) when the gateway dies.
 */
export function remoteScript(options: RemoteScriptOptions): string {
  const file = pgidFile(options.id);
  const bash = `bash --noprofile --norc -c ${shellQuote(options.command)}`;
  const grace = Math.max(0, Math.round(options.graceMs ?? 5000));
  const start = options.supervise === false
    ? [`setsid ${bash} <&0 2>&1 &`]
    : [
        `IFS= read -r -d '' hermes_sup <<'${SUPERVISOR_END}'`,
        supervisorText().replace(new RegExp(`^${SUPERVISOR_END}$`, 'gm'), ''),
        SUPERVISOR_END,
        'if command -v python3 >/dev/null 2>&1; then',
        options.stdinLifeline
          ? `  setsid python3 -I -S -c "$hermes_sup" 3 ${grace} -- ${bash} 3<&0 </dev/null 2>&1 &`
          : `  setsid python3 -I -S -c "$hermes_sup" - ${grace} -- ${bash} <&0 2>&1 &`,
        'else',
        `  setsid ${bash} ${options.stdinLifeline ? '</dev/null' : '<&0'} 2>&1 &`,
        'fi',
      ];
  return [
    ...preludeLines(options),
    ...start,
    'p=$!',
    `echo "$p" > ${file}`,
    'wait "$p"; rc=$?',
    // Members the command left behind (`cmd &`) would keep the output open: they go too.
    'kill -KILL -- -"$p" 2>/dev/null',
    `rm -f ${file}`,
    'exit $rc',
    '',
  ].join('\n');
}

/** stdin for the bootstrap: the script's byte count, the script, then the command's stdin. */
export function bootstrapInput(script: string, stdin?: string): Buffer {
  const body = Buffer.from(script, 'utf8');
  return Buffer.concat([Buffer.from(`${body.length}\n`), body, Buffer.from(stdin ?? '', 'utf8')]);
}

/**
 * A remote command that terminates the group recorded under `id`: SIGTERM, up to `graceMs`
 * for it to go, then SIGKILL. It waits briefly for the pgid file when the command is still
 * starting.
 */
export function killScript(id: string, graceMs: number): string {
  const file = pgidFile(id);
  return [
    `i=0; while [ ! -s ${file} ] && [ $i -lt 40 ]; do sleep 0.025; i=$((i+1)); done`,
    `g=$(cat ${file} 2>/dev/null) || exit 0; [ -n "$g" ] || exit 0`,
    remoteGroupKill('"$g"', graceMs),
    'exit 0',
  ].join('; ');
}
