import { randomBytes } from 'node:crypto';
import type { Logger } from '../../shared/logger.js';
import { abortReason } from '../../shared/notices.js';
import { KernelCellTooLargeError } from './errors.js';
import { MAX_OUTBOUND_FRAME, encodeFrame, type Frame } from './frames.js';
import type { MarkerSplitter } from './marker-splitter.js';
import type { CellOutcome, RunCellOptions } from './types.js';

/*
 * One cell of kernel_runner.py's protocol, the same for a kernel on this host (KernelProcess)
 * and one over a stream (remote/stream-kernel.ts): its `C` frame and end marker, its timeout
 * and interrupt, and the outcome its reply frame says. What a kernel does when a cell ends
 * abnormally (kill a local group, send a kill frame) stays with the kernel.
 */

/** Marker hex (32) plus the kind byte: the frame overhead of a cell. */
const CELL_OVERHEAD = 33;
/** The control frames that end a cell: ok, exception, sys.exit(). */
const REPLY_KINDS = new Set(['O', 'E', 'X']);
/** How long a kernel that called sys.exit() may take to end on its own before its group is killed. */
export const EXIT_WAIT_MS = 1000;

/** Random bytes for 256 markers at a time: one getrandom call, not one per cell. */
let markerPool = Buffer.alloc(0);
function markerHex(): string {
  if (markerPool.length < 16) markerPool = randomBytes(16 * 256);
  const hex = markerPool.toString('hex', 0, 16);
  // Each marker's bytes are used once and dropped.
  markerPool = markerPool.subarray(16);
  return hex;
}

/** A cell from its `C` frame to its outcome. */
export interface ActiveCell<O extends RunCellOptions = RunCellOptions> {
  marker: Buffer;
  options: O;
  reply?: Frame;
  settled: boolean;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
  resolve(outcome: CellOutcome): void;
}

/** The cell's source as sent. @throws KernelCellTooLargeError past the largest frame. */
export function cellSource(code: string): Buffer {
  const source = Buffer.from(code, 'utf8');
  if (source.length + CELL_OVERHEAD > MAX_OUTBOUND_FRAME) throw new KernelCellTooLargeError(source.length, MAX_OUTBOUND_FRAME - CELL_OVERHEAD);
  return source;
}

/**
 * Opens a cell: a random end marker, both splitters pointed at the cell's sinks (a sink that
 * throws is logged, not fatal). Returns the cell and the `C` frame to send.
 */
export function openCell<O extends RunCellOptions>(
  source: Buffer,
  options: O,
  resolve: (outcome: CellOutcome) => void,
  splitters: { stdout: MarkerSplitter; stderr: MarkerSplitter; logger: Logger },
): { cell: ActiveCell<O>; frame: Buffer } {
  const hex = markerHex();
  const marker = Buffer.from(`\0hermes-cell-end:${hex}\0`, 'latin1');
  const cell: ActiveCell<O> = { marker, options, settled: false, resolve };
  splitters.stdout.start(marker, (chunk) => deliver(options.onStdout, chunk, splitters.logger));
  splitters.stderr.start(marker, (chunk) => deliver(options.onStderr, chunk, splitters.logger));
  return { cell, frame: encodeFrame('C', Buffer.from(hex, 'latin1'), source) };
}

/** Arms the cell's timeout and its signal: either ends it through `end` (an abort with its reason). */
export function armCell(cell: ActiveCell, end: (outcome: CellOutcome) => void): void {
  const { timeoutMs, signal } = cell.options;
  if (timeoutMs > 0 && Number.isFinite(timeoutMs)) cell.timer = setTimeout(() => end({ kind: 'timeout' }), timeoutMs);
  if (signal) {
    cell.onAbort = () => end({ kind: 'interrupted', reason: abortReason(signal) });
    if (signal.aborted) cell.onAbort();
    else signal.addEventListener('abort', cell.onAbort, { once: true });
  }
}

/** Marks the cell settled and undoes what openCell and armCell set; the kernel then resolves it. */
export function closeCell(cell: ActiveCell, splitters: { stdout: MarkerSplitter; stderr: MarkerSplitter }): void {
  cell.settled = true;
  clearTimeout(cell.timer);
  if (cell.onAbort) cell.options.signal?.removeEventListener('abort', cell.onAbort);
  splitters.stdout.stop();
  splitters.stderr.stop();
}

/** True when `frame` may end `cell` now (a reply kind, the first reply); else it breaks the protocol. */
export function acceptsReply(cell: ActiveCell | undefined, frame: Frame): cell is ActiveCell {
  return cell !== undefined && !cell.reply && REPLY_KINDS.has(frame.kind);
}

/**
 * Settles the cell once its reply and both end markers are in: ok and exception through
 * `complete` at once; after sys.exit() (the kernel is ending on its own) once `ended` settles.
 */
export function finishWhenReady(
  cell: ActiveCell,
  splitters: { stdout: MarkerSplitter; stderr: MarkerSplitter },
  complete: (outcome: CellOutcome) => void,
  ended: () => Promise<void>,
): void {
  if (cell.settled || !cell.reply || !splitters.stdout.done || !splitters.stderr.done) return;
  const outcome = replyOutcome(cell.reply);
  if (outcome.kind !== 'exit') return complete(outcome);
  cell.settled = true;
  void ended().then(() => complete(outcome));
}

/** What the cell's reply says: ok, an exception with its traceback, or sys.exit(code) (the kernel is ending). */
function replyOutcome(reply: Frame): CellOutcome {
  if (reply.kind === 'O') return { kind: 'ok' };
  if (reply.kind === 'E') return { kind: 'exception', traceback: reply.payload.toString('utf8') };
  const text = reply.payload.toString('utf8');
  if (text.startsWith('i')) return { kind: 'exit', code: Number(text.slice(1)) };
  if (text.startsWith('s')) return { kind: 'exit', code: text.slice(1) };
  return { kind: 'exit', code: null };
}

function deliver(sink: (chunk: Buffer) => void, chunk: Buffer, logger: Logger): void {
  try {
    sink(chunk);
  } catch (error) {
    logger.error({ err: error }, 'kernel output callback threw');
  }
}
