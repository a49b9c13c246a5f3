import { posix } from 'node:path';
import { environmentKind, type Environment } from '../../environments/types.js';
import { errorMessage } from '../../shared/errors.js';
import { shellQuote } from '../../shared/shell-quote.js';

/** What a read found at a path. */
export type ReadOutcome =
  | { kind: 'file'; path: string; data: Buffer }
  | { kind: 'missing'; path: string }
  | { kind: 'directory'; path: string }
  /** `size` when it is known (a cap hit while streaming says only that it was over). */
  | { kind: 'too_large'; path: string; size?: number }
  | { kind: 'failed'; path: string; reason: string };

/** Largest file the file tools load; bigger ones are for `terminal` (head, sed) or search_files. */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;

/** Raw bytes per round trip on the shell path: base64 of it stays well under a 50 KB output cap. */
const SHELL_CHUNK_BYTES = 24 * 1024;

/**
 * Whether the environment's files are this host's files, read with this process's rights
 * (`local`). Only then may the tools touch the file system directly (the built-in search,
 * similar names); a sandbox or a remote backend is always gone through, so it hides what it hides.
 */
export function isHostLocal(env: Environment): boolean {
  return environmentKind(env) === 'host';
}

/**
 * A path as the environment's commands see it: absolute, relative ones from its cwd, `~`
 * its home (on environments that resolve paths themselves).
 */
export function resolveEnvPath(env: Environment, path: string): string {
  return env.resolvePath ? env.resolvePath(path) : posix.resolve(env.cwd, path);
}

/** Reads a file through the environment: its `readFile` when it has one, else base64 over `execute`. */
export async function readEnvFile(env: Environment, path: string, signal?: AbortSignal): Promise<ReadOutcome> {
  const full = resolveEnvPath(env, path);
  if (!env.readFile) return readOverShell(env, full, signal);
  try {
    const data = await env.readFile(full, { maxBytes: MAX_FILE_BYTES, signal });
    if (data.length > MAX_FILE_BYTES) return { kind: 'too_large', path: full, size: data.length };
    return { kind: 'file', path: full, data };
  } catch (error) {
    const { code, size } = error as NodeJS.ErrnoException & { size?: number };
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing', path: full };
    if (code === 'EISDIR') return { kind: 'directory', path: full };
    if (code === 'EFBIG') return { kind: 'too_large', path: full, ...(size !== undefined && size > MAX_FILE_BYTES + 1 ? { size } : {}) };
    return { kind: 'failed', path: full, reason: errorMessage(error) };
  }
}

async function readOverShell(env: Environment, full: string, signal?: AbortSignal): Promise<ReadOutcome> {
  const q = shellQuote(full);
  const probe = await env.execute(
    `if [ -d ${q} ]; then echo DIR; elif [ ! -e ${q} ]; then echo MISSING; elif [ ! -r ${q} ]; then echo UNREADABLE; else echo "SIZE $(wc -c < ${q})"; fi`,
    { signal },
  );
  const answer = probe.output.trim().split('\n').pop() ?? '';
  if (answer === 'DIR') return { kind: 'directory', path: full };
  if (answer === 'MISSING') return { kind: 'missing', path: full };
  if (answer === 'UNREADABLE') return { kind: 'failed', path: full, reason: 'permission denied' };
  const size = /^SIZE\s+(\d+)$/.exec(answer);
  if (!size) return { kind: 'failed', path: full, reason: `could not inspect the file: ${probe.output.trim().slice(0, 200)}` };
  const total = Number(size[1]);
  if (total > MAX_FILE_BYTES) return { kind: 'too_large', path: full, size: total };
  const parts: Buffer[] = [];
  for (let block = 0; block * SHELL_CHUNK_BYTES < total; block++) {
    const chunk = await env.execute(
      `dd if=${q} bs=${SHELL_CHUNK_BYTES} skip=${block} count=1 2>/dev/null | base64`,
      { signal },
    );
    if (chunk.exit_code !== 0 || chunk.truncated) {
      return { kind: 'failed', path: full, reason: `reading block ${block} failed: ${chunk.output.slice(0, 200)}` };
    }
    parts.push(Buffer.from(chunk.output.replace(/\s+/g, ''), 'base64'));
  }
  return { kind: 'file', path: full, data: Buffer.concat(parts) };
}

/**
 * Writes a file through the environment, creating parent folders: its `writeFile` when it
 * has one, else base64 on the standard input of `execute`. Returns the absolute path.
 */
export async function writeEnvFile(
  env: Environment,
  path: string,
  data: Buffer | string,
  signal?: AbortSignal,
): Promise<string> {
  const full = resolveEnvPath(env, path);
  if (env.writeFile) {
    await env.writeFile(full, data, { signal });
    return full;
  }
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const q = shellQuote(full);
  const dir = shellQuote(posix.dirname(full));
  const result = await env.execute(`mkdir -p -- ${dir} && base64 -d > ${q}`, {
    stdin: bytes.toString('base64'),
    signal,
  });
  if (result.exit_code !== 0) throw new Error(result.output.trim() || `exit code ${result.exit_code}`);
  return full;
}

/** The `{ error }` for a read that found no file, in words that say what and where. */
export function describeReadProblem(tool: string, outcome: Exclude<ReadOutcome, { kind: 'file' }>, cwd: string): string {
  switch (outcome.kind) {
    case 'missing':
      return `${tool}: file not found: ${outcome.path} (relative paths start at ${cwd})`;
    case 'directory':
      return `${tool}: ${outcome.path} is a directory, not a file; list it with search_files(pattern="*", target="files", path="${outcome.path}")`;
    case 'too_large':
      return `${tool}: ${outcome.path} is ${outcome.size !== undefined ? `${outcome.size} bytes, ` : ''}over the ${MAX_FILE_BYTES}-byte limit of the file tools; use terminal (head, sed -n) or search_files on it`;
    case 'failed':
      return `${tool}: cannot read ${outcome.path}: ${outcome.reason}`;
  }
}
