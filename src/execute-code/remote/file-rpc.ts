import { timingSafeEqual } from 'node:crypto';
import type { Environment } from '../../environments/types.js';
import { errorMessage } from '../../shared/errors.js';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { quote, readRemoteFile } from './remote-folder.js';

/** While a tool runs, polls wait this long (ms) so its answer is not held back. */
const BUSY_WAIT_MS = 20;

/** Runs one tool call of the script (CallGate.handle). */
export type FileRpcHandler = (tool: string, args: unknown) => Promise<unknown>;

export interface FileRpcOptions {
  environment: Environment;
  /** The private folder on the backend (holds `rpc/`). */
  dir: string;
  token: string;
  handler: FileRpcHandler;
  /** The environment's output cap (terminal.max_output_bytes): what one poll may print. */
  maxOutputBytes: number;
  /**
   * A shell condition (run in `rpc/`) that ends a poll early: the script or cell finished.
   * Polls print `@@done` when it holds.
   */
  doneTest: string;
  /** How long one poll waits on the backend for a request, in ms. */
  waitMs?: number;
  logger?: Logger;
}

/** Why a request file was deleted unanswered. */
export type Rejection = 'bad name' | 'bad JSON' | 'bad token' | 'bad sequence';

/**
 * The gateway side of the file transport: polls the backend for request files (one remote
 * command per poll, which first writes the answers that are ready, then waits a little for
 * requests, prints every new one and deletes it), runs each through the handler and queues
 * its answer for the next poll. Requests with a bad token, bad JSON or a sequence number
 * that is malformed or already used are deleted unanswered.
 */
export class FileRpcPoller {
  /** Requests deleted unanswered, by reason (tests and logs). */
  readonly rejected: Rejection[] = [];
  /** Remote commands spent polling. */
  polls = 0;
  private readonly seen = new Set<number>();
  private readonly ready: { name: string; body: Buffer }[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly logger: Logger;
  private stopped = false;
  private loop?: Promise<void>;
  /** Set once a poll saw the done condition. */
  done = false;

  constructor(private readonly options: FileRpcOptions) {
    this.logger = options.logger ?? silentLogger();
  }

  /** Starts polling until `stop()`, or until a poll sees the done condition with nothing left to answer. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Stops after the poll in flight (which ends early once the done condition holds). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    await Promise.allSettled([...this.running]);
  }

  /** Resolves when the loop ended by itself (the done condition) or was stopped. */
  finished(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      // A tool answering now would otherwise wait out the next poll's whole wait: give it a
      // moment, and keep that poll short while any tool is still running.
      if (this.running.size > 0) await Promise.race([Promise.allSettled([...this.running]), sleep(BUSY_WAIT_MS)]);
      let output: string;
      try {
        output = await this.pollOnce(this.running.size > 0 ? BUSY_WAIT_MS : (this.options.waitMs ?? 250));
      } catch (error) {
        this.logger.warn({ err: errorMessage(error) }, 'execute_code: polling the remote backend failed');
        break;
      }
      if (output.includes('@@gone')) break;
      for (const line of output.split('\n')) await this.onLine(line);
      if (output.includes('@@done')) {
        // The script (or cell) ended: nothing will read answers any more.
        this.done = true;
        break;
      }
    }
  }

  private async pollOnce(waitMs: number): Promise<string> {
    this.polls++;
    const answers = this.ready.splice(0);
    const waitRounds = Math.max(1, Math.round(waitMs / 5));
    const budget = Math.floor((this.options.maxOutputBytes - 512) * 0.7);
    const command = [
      'umask 077',
      `cd -- ${quote(`${this.options.dir}/rpc`)} 2>/dev/null || { echo '@@gone'; exit 0; }`,
      answers.length > 0
        ? `for name in ${answers.map((a) => a.name).join(' ')}; do IFS= read -r n; head -c "$n" > ".tmp_$name" && mv -f ".tmp_$name" "$name"; done`
        : ':',
      'exec 9<> <(:)',
      `i=0; while :; do set -- req_*; [ -e "$1" ] && break; ${this.options.doneTest} && break; i=$((i+1)); [ $i -ge ${waitRounds} ] && break; read -t 0.005 -u 9 _; done`,
      'total=0',
      `for f in req_*; do [ -e "$f" ] || continue; s=$(wc -c < "$f"); if [ $((total + s)) -gt ${budget} ]; then echo "@@big $f $s"; continue; fi; total=$((total + s)); printf '@@req %s ' "$f"; base64 < "$f" | tr -d '\\n'; echo; rm -f -- "$f"; done`,
      `${this.options.doneTest} && echo '@@done'`,
      'exit 0',
    ].join('\n');
    const stdin = answers.map((a) => Buffer.concat([Buffer.from(`${a.body.length}\n`), a.body]));
    const result = await this.options.environment.execute(command, { stdin: Buffer.concat(stdin).toString('utf8'), timeout: 60 });
    if (result.exit_code !== 0) throw new Error(`poll exited with ${result.exit_code}: ${result.output.slice(-500)}`);
    return result.output;
  }

  private async onLine(line: string): Promise<void> {
    if (line.startsWith('@@req ')) {
      const [, name, data] = line.split(' ');
      this.accept(name, Buffer.from(data ?? '', 'base64'));
    } else if (line.startsWith('@@big ')) {
      const [, name, size] = line.split(' ');
      const path = `${this.options.dir}/rpc/${name}`;
      const body = await readRemoteFile(this.options.environment, path, 0, Number(size), this.options.maxOutputBytes);
      await this.options.environment.execute(`rm -f -- ${quote(path)}`, { timeout: 30 });
      this.accept(name, body);
    }
  }

  /** Validates a request and runs it; its answer waits for the next poll. */
  private accept(name: string, body: Buffer): void {
    const match = /^req_(\d{6,9})$/.exec(name);
    if (!match) return this.reject('bad name', name);
    const seq = Number(match[1]);
    let request: { id?: unknown; tool?: unknown; args?: unknown; token?: unknown };
    try {
      request = JSON.parse(body.toString('utf8')) as typeof request;
    } catch {
      return this.reject('bad JSON', name);
    }
    if (typeof request !== 'object' || request === null) return this.reject('bad JSON', name);
    if (typeof request.token !== 'string' || !sameToken(request.token, this.options.token)) return this.reject('bad token', name);
    if (request.id !== seq || this.seen.has(seq)) return this.reject('bad sequence', name);
    if (typeof request.tool !== 'string') return this.reject('bad JSON', name);
    this.seen.add(seq);
    const tool = request.tool;
    const answer = (async () => {
      let reply: unknown;
      try {
        reply = { id: seq, result: await this.options.handler(tool, request.args ?? {}) };
      } catch (error) {
        reply = { id: seq, error: errorMessage(error) };
      }
      this.ready.push({ name: `res_${match[1]}`, body: Buffer.from(JSON.stringify(reply), 'utf8') });
    })();
    this.running.add(answer);
    void answer.finally(() => this.running.delete(answer));
  }

  private reject(reason: Rejection, name: string): void {
    this.rejected.push(reason);
    this.logger.warn({ file: name, reason }, `execute_code: deleted a remote request unanswered (${reason})`);
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
