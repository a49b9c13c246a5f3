import type { Environment } from '../environments/types.js';
import type { Logger } from '../shared/logger.js';
import { kernelUnavailableNote } from '../shared/notices.js';
import type { ToolContext } from '../tools/types.js';
import type { ExecuteCodeResult } from './types.js';

/** What a call needs on any path: where it runs, what it may call, and who asks. */
export interface CellRequest {
  owner: string;
  code: string;
  reset: boolean;
  stub: string;
  allowed: ReadonlySet<string>;
  context: ToolContext;
  passthrough: Iterable<string>;
  startedMs: number;
}

/** A kernel pool's answer: the cell's result, or why no kernel could start. */
export type KernelAnswer = ExecuteCodeResult | { unavailable: string };

/**
 * One side of the seam (this host, or a backend elsewhere): its session kernels when they
 * are on, and a one-shot script. `E` is the environment the path can run on.
 */
export interface CallPath<E extends Environment> {
  readonly kernels?: { run(request: CellRequest, environment: E): Promise<KernelAnswer> };
  oneShot(request: CellRequest, environment: E): Promise<ExecuteCodeResult>;
}

/**
 * Runs a call on `path`: in the owner's session kernel when kernels are on, else (or when
 * none can start) as a one-shot script, with a note that says so. The one fallback.
 */
export async function runCall<E extends Environment>(path: CallPath<E>, request: CellRequest, environment: E, logger: Logger): Promise<ExecuteCodeResult> {
  let note: string | undefined;
  if (path.kernels) {
    const cell = await path.kernels.run(request, environment);
    if (!('unavailable' in cell)) return cell;
    note = kernelUnavailableNote(cell.unavailable);
    logger.warn({ session: request.owner }, note);
  }
  const result = await path.oneShot(request, environment);
  return note ? { ...result, kernel: { mode: 'per-call', note } } : result;
}
