/**
 * Session kernels: resident Python processes that keep a namespace across execute_code
 * calls. `Kernel` is the contract of one, whatever carries it; `FrameKernel` is the cell
 * state machine of kernel_runner.py over a `FrameTransport` (a Unix socket here:
 * `KernelProcess`; stream frames on a backend: remote/stream-kernel.ts); the polled-file
 * kernel (remote/remote-kernel.ts) keeps the same contract. A cell sent to a busy kernel is
 * answered `{ kind: 'busy' }` on every transport. `KernelPool` keys kernels by owner, runs
 * one cell at a time per owner, drops kernels that ended, reaps idle ones and enforces the cap.
 *
 * What a cell sees: a fresh `__main__` module (`__name__ == "__main__"`, nothing of the
 * runner), `sys.argv == ['']`, `''` (the cwd) first on `sys.path`, stdin at /dev/null,
 * unbuffered stdout/stderr (like `python -u`, so `print` and `os.system` output keep
 * their order), and no inherited control descriptors. Cells compile as `<cell>`; the
 * latest cell's source is in `linecache`, so a traceback through a function defined in an
 * earlier cell shows that line number with no (or the wrong) source text.
 *
 * Output belongs to the cell that is running when it is written; what a thread or
 * background process writes between cells is dropped. The kernel's environment, cwd and
 * interpreter are fixed when it starts: a variable passed through later reaches cells only
 * after the kernel is reset (or lost and restarted).
 */
export { KernelProcess } from './kernel-process.js';
export { FrameKernel } from './frame-kernel.js';
export type { FrameTransport } from './frame-transport.js';
export { KernelWiring, StartFailure } from './kernel-wiring.js';
export { KernelPool, type KernelPoolOptions, type WithKernelOptions, type PooledKernel } from './kernel-pool.js';
export { kernelRunnerPath, kernelArgv } from './runner-path.js';
export { KernelStartError, KernelCellTooLargeError, KernelPoolClosedError } from './errors.js';
export type { CellOutcome, Kernel, KernelExit, KernelStartOptions, RunCellOptions, KernelUseInfo, KernelState } from './types.js';
