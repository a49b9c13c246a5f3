import { execa } from 'execa';
import type { HostCommand, ReadFileOptions, FileOptions } from '../types.js';
import { codeFromMessage, fileError, type FileErrorCode } from '../file-errors.js';

/** Seconds a file operation may take inside the sandbox (a FIFO that nobody opens would block forever). */
const FILE_OP_TIMEOUT_MS = 60_000;

/*
 * The file tools' reads and writes run as a small shell program inside the sandbox, so they
 * reach exactly what a command there reaches: a symlink to a host file resolves in the
 * sandbox's view, `/proc/self/root` is the sandbox's root, hidden folders are not there.
 * Exit codes carry the errno, so the tools can say what went wrong.
 */
const READ = [
  'p=$1',
  '[ -e "$p" ] || exit 2',
  '[ -d "$p" ] && exit 21',
  // FIFOs, devices and sockets would block or never end: regular files only.
  '[ -f "$p" ] || exit 22',
  '[ -r "$p" ] || exit 13',
  // Only shell builtins before cat: each fork inside bubblewrap costs. The cap is enforced on what cat sends.
  'exec cat -- "$p"',
].join('\n');

const WRITE = ['p=$1', 'mkdir -p -- "$(dirname -- "$p")" || exit 1', 'exec cat > "$p"'].join('\n');

const READ_CODES: Record<number, FileErrorCode> = { 2: 'ENOENT', 21: 'EISDIR', 13: 'EACCES' };


type Launch = (argv: string[]) => HostCommand;

/** Reads a file as the sandbox sees it. */
export async function readInSandbox(launch: Launch, path: string, options: ReadFileOptions = {}): Promise<Buffer> {
  const max = options.maxBytes ?? -1;
  const command = launch(['/bin/sh', '-c', READ, 'hermes-read', path]);
  const run = await execa(command.file, command.args, {
    cwd: command.cwd, env: command.env, extendEnv: false, encoding: 'buffer', reject: false, stdin: 'ignore', stripFinalNewline: false,
    maxBuffer: max >= 0 ? max + 1 : 1024 * 1024 * 1024,
    timeout: FILE_OP_TIMEOUT_MS, cancelSignal: options.signal,
  });
  if (run.exitCode === 0) return Buffer.from(run.stdout);
  if (run.isMaxBuffer) throw fileError('EFBIG', path, max + 1, `over the ${max}-byte cap`);
  if (run.exitCode === 22) throw fileError('EIO', path, undefined, 'not a regular file: a FIFO, device or socket');
  const code = run.exitCode === undefined ? undefined : READ_CODES[run.exitCode];
  if (code) throw fileError(code, path);
  throw failure(path, run.timedOut, Buffer.from(run.stderr).toString('utf8').trim());
}

/** Writes a file as the sandbox sees it (read-only and missing places fail as they do there). */
export async function writeInSandbox(launch: Launch, path: string, data: Buffer | string, options: FileOptions = {}): Promise<void> {
  const command = launch(['/bin/sh', '-c', WRITE, 'hermes-write', path]);
  const run = await execa(command.file, command.args, {
    cwd: command.cwd, env: command.env, extendEnv: false, reject: false,
    input: typeof data === 'string' ? Buffer.from(data, 'utf8') : data,
    timeout: FILE_OP_TIMEOUT_MS, cancelSignal: options.signal,
  });
  if (run.exitCode === 0) return;
  throw failure(path, run.timedOut, String(run.stderr).trim());
}

function failure(path: string, timedOut: boolean, stderr: string): Error {
  if (timedOut) return fileError('EIO', path, undefined, `no answer within ${FILE_OP_TIMEOUT_MS / 1000} s`);
  const code = codeFromMessage(stderr);
  return fileError(code ?? 'EIO', path, undefined, code ? undefined : stderr.split('\n').pop()?.slice(0, 200) || 'the sandbox refused');
}
