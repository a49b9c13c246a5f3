export { HermesError, ConfigError, errorMessage } from './errors.js';
export { packageRoot } from './package-root.js';
export { createLogger, silentLogger, normalizeLevel, LOG_LEVELS, type Logger } from './logger.js';
export { Semaphore } from './semaphore.js';
export { KeyedQueue } from './keyed-queue.js';
export { retry, backoffMs, retryAfterMs, type RetryPolicy } from './retry.js';
export { readJson } from './read-json.js';
export {
  abortReason,
  abortText,
  interruptedNotice,
  commandTimedOutNotice,
  scriptTimedOutNotice,
  cellTimedOutNotice,
  kernelInterruptedNotice,
  kernelExitNotice,
  kernelDiedNotice,
  kernelUnavailableNote,
  TOOLS_CHANGED_NOTE,
} from './notices.js';
export { PRUNED_KERNEL_OUTPUT, PRUNED_KERNEL_GONE, PRUNED_OUTPUT, SUMMARY_MARKER, formatTokens, compactionNotice, noRoomMessage } from './notices.js';
