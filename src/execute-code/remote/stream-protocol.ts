import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { shellQuote } from '../../shared/shell-quote.js';
import { packageRoot } from '../../shared/package-root.js';

/*
 * The wire between the gateway and remote_stream_runner.py (its docstring is the reference):
 * `u32 big-endian length` + body, the body's first byte its kind; connection ids are u32.
 */

/** Version of the runner's protocol this side speaks (its `H` frame says its own). */
export const PROTOCOL_VERSION = '1';
/** Largest frame the runner sends (its chunks are 64 KiB). */
export const MAX_INBOUND_FRAME = 1024 * 1024;
/** Data frames to the runner are cut to this size, so no single frame holds the stream up. */
export const OUTBOUND_CHUNK = 256 * 1024;
/** What the stream's shell prints to stderr when the backend has no python3. */
export const NO_PYTHON = '@@hermes-no-python3';

/**
 * The loader on the stream's command line (fixed text, nothing of the caller's): it reads the
 * runner's source from stdin (ten digits of length, then the text) and runs it. `-I`: no
 * PYTHON* variables, no user site, nothing of the working folder on sys.path.
 */
const LOADER = [
  'import os',
  'def r(n):',
  " b=b''",
  ' while len(b)<n:',
  '  c=os.read(0,n-len(b))',
  '  if not c:raise SystemExit(3)',
  '  b+=c',
  ' return b',
  "exec(compile(r(int(r(10))),'hermes-stream-runner','exec'))",
].join('\n');

/** The command every stream runs: python3 with the loader, or a line that says python3 is missing. */
export const STREAM_COMMAND = `command -v python3 >/dev/null 2>&1 || { echo '${NO_PYTHON}' >&2; exit 127; }; exec python3 -I -c ${shellQuote(LOADER)}`;

let payload: Buffer | undefined;

/** The runner's parts, in the order they are joined: the process-tree kill, the folder sweep, the RPC relay, the runner itself. */
const RUNNER_PARTS = ['hermes_process_tree.py', 'remote_sweep.py', 'remote_stream_relay.py', 'remote_stream_runner.py'];

/** What the loader reads first: the runner's parts as one text, length-prefixed. */
export function runnerPayload(): Buffer {
  if (!payload) {
    const python = join(packageRoot(), 'src/execute-code/python');
    const text = RUNNER_PARTS.map((part) => readFileSync(join(python, part), 'utf8')).join('\n');
    const body = Buffer.from(text, 'utf8');
    payload = Buffer.concat([Buffer.from(String(body.length).padStart(10, '0'), 'latin1'), body]);
  }
  return payload;
}

/** What the runner makes and starts (the `S` frame). */
export interface StreamSetup {
  mode: 'script' | 'kernel';
  prefix: 'hermes-rexec' | 'hermes-rkernel';
  /** Files written into the private folder (0600). */
  files: Record<string, string>;
  /** The child's argv; `{dir}` stands for the private folder. */
  argv: string[];
  /** The child's working folder (`{dir}` allowed); absent: the stream's own. */
  cwd?: string;
  /** Variables laid over the stream's for the child only (the token). */
  env: Record<string, string>;
  /** Remove folders a killed gateway left (see remote_sweep.py). */
  sweep: boolean;
  graceMs: number;
  /** The gateway's connection cap for this run (the runner keeps a little headroom over it). */
  maxConnections: number;
}

/** `H`: the child runs. */
export const helloFrame = z.object({ v: z.string(), dir: z.string(), pid: z.number().int(), swept: z.number().int().default(0) });
/** `X`: how the child ended. */
export const exitFrame = z.object({ code: z.number().int().nullable(), signal: z.string().nullable() });
/** `Z`: setup failed. */
export const refusalFrame = z.object({ error: z.string() });

/** A frame's JSON payload checked against `schema`, or undefined. */
export function parseFrame<T>(schema: z.ZodType<T>, payload: Buffer): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A connection id as the frames carry it. */
export function idBytes(id: number): Buffer {
  const bytes = Buffer.allocUnsafe(4);
  bytes.writeUInt32BE(id, 0);
  return bytes;
}
