import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Environment } from '../../environments/types.js';
import { HermesError } from '../../shared/errors.js';
import { packageRoot } from '../../shared/package-root.js';
import { shellQuote as quote } from '../../shared/shell-quote.js';

/** execute_code cannot run on a remote backend (no python3, no folder). */
export class RemoteExecError extends HermesError {
  override readonly name = 'RemoteExecError';
  constructor(code: 'REMOTE_NO_PYTHON' | 'REMOTE_SETUP', message: string) {
    super(code, message);
  }
}

let transport: string | undefined;

/** The stub for a remote backend: the rendered stub with the file transport's `_call` after it. */
export function fileTransportStub(stub: string): string {
  transport ??= readFileSync(join(packageRoot(), 'src/execute-code/python/hermes_tools_file_transport.py'), 'utf8');
  return `${stub}\n${transport}`;
}

/** Names the backend in messages: the environment's own words, else a generic phrase. */
export function backendName(environment: Environment): string {
  const describe = (environment as { describe?: () => string }).describe;
  return typeof describe === 'function' ? describe.call(environment) : 'remote terminal backend';
}

/** A single-quoted POSIX shell word (the one quoter, under the name this folder uses). */
export { quote };

/**
 * Creates a private folder on the backend (`umask 077`, mode 0700) with an `rpc/` folder
 * and `files`, whose contents travel on stdin (only names and the folder's creation are on
 * the command line). Returns the folder's path.
 * @throws RemoteExecError when python3 is missing there or the folder cannot be made.
 */
export async function createRemoteFolder(
  environment: Environment,
  files: Record<string, string>,
  prefix = 'hermes-rexec',
  options: { sweep?: boolean } = {},
): Promise<string> {
  const names = Object.keys(files);
  const stdin = names.map((name) => {
    const body = Buffer.from(files[name], 'utf8');
    return Buffer.concat([Buffer.from(`${body.length}\n`), body]);
  });
  const command = [
    'umask 077',
    "command -v python3 >/dev/null 2>&1 || { echo '@@nopython'; exit 0; }",
    ...(options.sweep ? [sweepCommand()] : []),
    // The backend's TMPDIR when it sets one (a noexec or shared /tmp is its owner's call).
    `d=$(mktemp -d "\${TMPDIR:-/tmp}/${prefix}-XXXXXXXXXX") || exit 1`,
    'chmod 700 "$d" && mkdir "$d/rpc" || exit 1',
    `for name in ${names.map(quote).join(' ')}; do IFS= read -r n || exit 1; head -c "$n" > "$d/$name" || exit 1; done`,
    'echo "@@dir $d"',
  ].join('\n');
  const result = await environment.execute(command, { stdin: Buffer.concat(stdin).toString('utf8'), timeout: 60 });
  if (result.output.includes('@@nopython')) {
    throw new RemoteExecError(
      'REMOTE_NO_PYTHON',
      `execute_code needs python3 on the ${backendName(environment)}, but python3 was not found on its PATH. Install Python 3 there, or use another terminal backend for execute_code.`,
    );
  }
  const dir = /@@dir (\/\S+)/.exec(result.output)?.[1];
  if (result.exit_code !== 0 || !dir) {
    throw new RemoteExecError('REMOTE_SETUP', `execute_code could not create its folder on the ${backendName(environment)}: ${result.output.trim() || `exit code ${result.exit_code}`}`);
  }
  return dir;
}

let sweeper: string | undefined;

/** Runs remote_sweep.py on the backend's temp folder (the text on stdin, as a here-document). */
function sweepCommand(): string {
  sweeper ??= readFileSync(join(packageRoot(), 'src/execute-code/python/remote_sweep.py'), 'utf8');
  return [
    `python3 -I - "\${TMPDIR:-/tmp}" <<'HERMES_SWEEP_END' 2>/dev/null`,
    sweeper,
    'import sys',
    'print("@@swept %d" % sweep_folders(sys.argv[1]))',
    'HERMES_SWEEP_END',
  ].join('\n');
}

/** An absolute path whose last part is one of our folders, without `..`: the only thing we rm -rf. */
const OUR_FOLDER = /^(?:\/(?!\.\.?\/)[^/\n]+)*\/hermes-r(?:exec|kernel)-[A-Za-z0-9]+$/;

/** Removes the folder (best effort: a failure is logged by the caller). */
export async function removeRemoteFolder(environment: Environment, dir: string): Promise<boolean> {
  if (!OUR_FOLDER.test(dir)) return false;
  const result = await environment.execute(`rm -rf -- ${quote(dir)}`, { timeout: 60 });
  return result.exit_code === 0;
}

/** Bytes of base64 output a remote command may print without the environment cutting it. */
export function chunkBytes(maxOutputBytes: number): number {
  return Math.max(1024, Math.floor(((maxOutputBytes - 256) * 3) / 4) - 64);
}

/**
 * Reads `length` bytes of a remote file from `start`, in chunks that fit the environment's
 * output cap (base64 on the wire, so any bytes survive).
 */
export async function readRemoteFile(environment: Environment, path: string, start: number, length: number, maxOutputBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  const chunk = chunkBytes(maxOutputBytes);
  for (let offset = start; offset < start + length; offset += chunk) {
    const size = Math.min(chunk, start + length - offset);
    const result = await environment.execute(`tail -c +${offset + 1} -- ${quote(path)} | head -c ${size} | base64 | tr -d '\\n'`, { timeout: 60 });
    if (result.exit_code !== 0) break;
    const data = Buffer.from(result.output.trim(), 'base64');
    parts.push(data);
    if (data.length < size) break;
  }
  return Buffer.concat(parts);
}
