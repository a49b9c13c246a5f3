import { HermesError } from '../../shared/errors.js';

/** The kernel process could not be started or did not report ready in time. */
export class KernelStartError extends HermesError {
  override readonly name = 'KernelStartError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('KERNEL_START_FAILED', message, options);
  }
}

/** A cell's source is larger than the control channel carries. */
export class KernelCellTooLargeError extends HermesError {
  override readonly name = 'KernelCellTooLargeError';
  constructor(bytes: number, limit: number) {
    super('KERNEL_CELL_TOO_LARGE', `The cell is ${bytes} bytes of UTF-8; a kernel accepts at most ${limit}. Split the code or load data from a file.`);
  }
}

/** `withKernel` was called after `closeAll()`. */
export class KernelPoolClosedError extends HermesError {
  override readonly name = 'KernelPoolClosedError';
  constructor(owner: string) {
    super('KERNEL_POOL_CLOSED', `The kernel pool is closed; cannot run a cell for "${owner}". Create a new executor.`);
  }
}
