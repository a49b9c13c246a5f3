/**
 * Session kernels: resident Python processes that keep a namespace across execute_code
 * calls. `KernelProcess` is one kernel; `KernelPool` keys them by owner, runs one cell at
 * a time per owner, drops kernels that ended, reaps idle ones and enforces the cap.
 *
 * The kernel's environment, cwd and interpreter are fixed when it starts: a variable
 * passed through later reaches cells only after the kernel is reset (or lost and restarted).
 */
export { KernelProcess } from './kernel-process.js';
export { KernelPool, type KernelPoolOptions } from './kernel-pool.js';
export { kernelRunnerPath, kernelArgv } from './runner-path.js';
export { KernelStartError, KernelBusyError, KernelCellTooLargeError, KernelPoolClosedError } from './errors.js';
export type { CellOutcome, KernelExit, KernelStartOptions, RunCellOptions, KernelUseInfo, KernelState } from './types.js';
