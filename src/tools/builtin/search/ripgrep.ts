import { createInterface } from 'node:readline';
import { posix } from 'node:path';
import { execa } from 'execa';
import { runsOnThisHost, type Environment } from '../../../environments/types.js';
import { readEnvFile } from '../env-files.js';
import { shellQuote } from '../../../shared/shell-quote.js';
import { capLine } from '../text.js';
import { compileNamePattern } from './pattern.js';
import { MAX_RESULT_LINE_CHARS, MAX_SEARCH_FILE_BYTES, SKIPPED_NAMES, type Hit, type SearchRequest, type SearchSink } from './types.js';

/** Seconds a ripgrep run may take before it is stopped. */
const RG_TIMEOUT_SECONDS = 120;

const available = new WeakMap<Environment, Promise<boolean>>();

/** Whether `rg` is on the environment's PATH; asked once per environment. */
export function ripgrepAvailable(env: Environment, signal?: AbortSignal): Promise<boolean> {
  let known = available.get(env);
  if (!known) {
    known = env
      .execute('command -v rg >/dev/null 2>&1 && echo HAVE_RG', { timeout: 10, signal })
      .then((result) => result.output.includes('HAVE_RG'))
      .catch(() => false);
    available.set(env, known);
  }
  return known;
}

/** The ripgrep arguments for a request: hidden files in, ignore files off, `.git` and `node_modules` out. */
export function ripgrepArgs(request: SearchRequest): string[] {
  const args = ['--no-config', '--hidden', '--no-ignore', '--no-messages', '--sort', 'path'];
  // Later globs win in ripgrep: the user's first, the fixed exclusions last.
  if (request.fileGlob) args.push('--glob', request.fileGlob);
  for (const name of SKIPPED_NAMES) args.push('--glob', `!${name}`);
  if (request.target === 'files') return [...args, '--files', '--', request.root];
  args.push('--json', '--no-mmap', '--encoding', 'none', `--max-filesize=${MAX_SEARCH_FILE_BYTES}`);
  if (request.context > 0) args.push('--context', String(request.context));
  return [...args, '--regexp', request.pattern, '--', request.root];
}

interface RgText {
  text?: string;
  bytes?: string;
}
interface RgMessage {
  type: string;
  data: {
    path?: RgText;
    lines?: RgText;
    line_number?: number;
    binary_offset?: number | null;
  };
}

const decode = (value: RgText | undefined): string =>
  value?.text ?? (value?.bytes ? Buffer.from(value.bytes, 'base64').toString('utf8') : '');

/** Feeds ripgrep's output lines to the sink, file by file; binary files are dropped. */
class RgParser {
  private lines = new Map<number, string>();
  private matchLines: number[] = [];
  private readonly nameRegex: RegExp | undefined;
  /** True once ripgrep reported any file: an exit code 2 then means partial trouble (an unreadable folder). */
  sawFiles = false;

  constructor(
    private readonly request: SearchRequest,
    private readonly sink: SearchSink,
  ) {
    if (request.target === 'files') this.nameRegex = compileNamePattern(request.pattern);
  }

  line(raw: string): void {
    if (raw === '') return;
    if (this.request.target === 'files') {
      this.sawFiles = true;
      const shown = posix.normalize(raw);
      if (this.nameRegex!.test(posix.basename(shown))) this.sink.file(shown);
      return;
    }
    if (!raw.startsWith('{')) return;
    const message = JSON.parse(raw) as RgMessage;
    const { data } = message;
    if (message.type === 'begin') {
      this.sawFiles = true;
      this.lines = new Map();
      this.matchLines = [];
    } else if (message.type === 'match' || message.type === 'context') {
      const text = decode(data.lines).replace(/\r?\n$/, '');
      this.lines.set(data.line_number!, text);
      if (message.type === 'match') this.matchLines.push(data.line_number!);
    } else if (message.type === 'end') {
      if (data.binary_offset === null || data.binary_offset === undefined) {
        this.sink.matches(posix.normalize(decode(data.path)), this.hits());
      }
    }
  }

  private hits(): Hit[] {
    const n = this.request.context;
    const show = (line: number) => ({ line, content: capLine(this.lines.get(line) ?? '', MAX_RESULT_LINE_CHARS) });
    return this.matchLines.map((line) => {
      const hit: Hit = show(line);
      if (n > 0) {
        hit.before = [];
        hit.after = [];
        for (let j = Math.max(1, line - n); j < line; j++) if (this.lines.has(j)) hit.before.push(show(j));
        for (let j = line + 1; j <= line + n; j++) if (this.lines.has(j)) hit.after.push(show(j));
      }
      return hit;
    });
  }
}

/** What went wrong in a ripgrep run, or undefined when it ran (exit 0 or 1). */
export type RgFailure = { error: string } | undefined;

/**
 * Exit 2 is an error: with a message (a bad regex) it is reported; without one, and with no
 * file seen, the root could not be searched; with files seen, some folder was unreadable and
 * the results stand, as they would with `--no-messages` on the command line.
 */
function judge(exitCode: number | undefined, message: string, parser: RgParser, root: string): RgFailure {
  if (exitCode === 0 || exitCode === 1) return undefined;
  const text = message.trim();
  if (text) return { error: `search_files: ripgrep failed: ${text.slice(0, 500)}` };
  if (parser.sawFiles) return undefined;
  return { error: `search_files: path not found or not readable: ${root}` };
}

/**
 * Runs ripgrep. On a host environment it is spawned directly and its output streamed (no
 * output cap); elsewhere it runs through `execute`, and through a temporary file in the
 * environment when the output is more than `execute` returns at once.
 */
export async function searchRipgrep(
  request: SearchRequest,
  env: Environment,
  sink: SearchSink,
  signal?: AbortSignal,
): Promise<RgFailure> {
  const parser = new RgParser(request, sink);
  const args = ripgrepArgs(request);
  if (runsOnThisHost(env)) {
    // The environment's own variables: ripgrep needs no secret, and in a sandbox it runs inside.
    const host = env.hostCommand(['rg', ...args], { cwd: env.cwd });
    const child = execa(host.file, host.args, {
      cwd: host.cwd,
      env: host.env,
      extendEnv: false,
      buffer: { stdout: false, stderr: true },
      maxBuffer: { stderr: 64 * 1024 },
      reject: false,
      stdin: 'ignore',
      timeout: RG_TIMEOUT_SECONDS * 1000,
      ...(signal ? { cancelSignal: signal } : {}),
    });
    const reader = createInterface({ input: child.stdout, crlfDelay: Infinity });
    for await (const line of reader) parser.line(line);
    const result = await child;
    if (result.isCanceled) return { error: 'search_files: interrupted' };
    if (result.timedOut) return { error: `search_files: ripgrep took longer than ${RG_TIMEOUT_SECONDS}s; narrow path or file_glob` };
    return judge(result.exitCode, String(result.stderr ?? ''), parser, request.root);
  }
  const command = ['rg', ...args].map(shellQuote).join(' ');
  const result = await env.execute(command, { timeout: RG_TIMEOUT_SECONDS, signal });
  if (result.truncated) return viaTempFile(command, request, env, parser, signal);
  const noise: string[] = [];
  for (const line of result.output.split('\n')) {
    // Output and error text share one stream here: what is not ripgrep's JSON (or a path) is its message.
    if (result.exit_code === 2 && !line.startsWith('{') && request.target === 'content') noise.push(line);
    else parser.line(line);
  }
  return judge(result.exit_code, noise.join('\n'), parser, request.root);
}

/**
 * For results bigger than `execute` returns at once: ripgrep writes to a temporary file in
 * the environment, which is then read in chunks like any file and removed.
 */
async function viaTempFile(command: string, request: SearchRequest, env: Environment, parser: RgParser, signal?: AbortSignal): Promise<RgFailure> {
  const run = await env.execute(`out=$(mktemp) || exit 3; ${command} > "$out" 2> "$out.err"; echo "HERMES_RG $? $out"`, {
    timeout: RG_TIMEOUT_SECONDS,
    signal,
  });
  const marker = /HERMES_RG (\d+) (\S+)/.exec(run.output);
  if (!marker) return { error: `search_files: could not run ripgrep: ${run.output.trim().slice(0, 300)}` };
  const [, code, file] = marker;
  try {
    const out = await readEnvFile(env, file, signal);
    const err = await readEnvFile(env, `${file}.err`, signal);
    if (out.kind !== 'file') {
      return { error: `search_files: the results are too large to return (${out.kind === 'too_large' ? `${out.size} bytes` : out.kind}); narrow path, file_glob or the pattern` };
    }
    for (const line of out.data.toString('utf8').split('\n')) parser.line(line);
    return judge(Number(code), err.kind === 'file' ? err.data.toString('utf8') : '', parser, request.root);
  } finally {
    await env.execute(`rm -f -- ${shellQuote(file)} ${shellQuote(`${file}.err`)}`, { timeout: 10 }).catch(() => undefined);
  }
}
