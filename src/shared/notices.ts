/**
 * Every text the gateway shows about how a run ended or what became of old output: the
 * interrupt reason and its notice, timeouts, lost kernel state, pruned outputs, compaction.
 * One module, so a wording changes in one place; results carry `interrupted` and `reason`
 * as values, and nothing parses these texts back out of output.
 */

// The interrupt: an AbortSignal whose reason is the text shown to the model.

/**
 * The reason of an aborted signal as shown to the model (`user sent a new message`), or
 * undefined when it has none (not aborted, a bare `abort()`, an empty string). The one
 * decoder of `signal.reason`.
 */
export function abortReason(signal: AbortSignal | undefined): string | undefined {
  const reason: unknown = signal?.reason;
  if (typeof reason === 'string') return reason || undefined;
  if (reason instanceof Error && reason.name !== 'AbortError') return reason.message || undefined;
  return undefined;
}

/** The reason, or `interrupted` when the signal has none: for texts that always name one. */
export function abortText(signal: AbortSignal | undefined): string {
  return abortReason(signal) ?? 'interrupted';
}

/**
 * Why a turn or a run was stopped: the reason its signal carries, shown to the model in
 * `[execution interrupted — R]` and to the person in the interrupted turn's mark.
 */
export const InterruptReason = {
  newMessage: 'user sent a new message',
  stop: 'stopped by the user',
  newSession: 'user started a new session',
  retry: 'user asked to run the last message again',
  undo: 'user dropped the last turn',
  shutdown: 'gateway shutting down',
  /** Ctrl-C at `hermes chat` or `hermes exec`. */
  ctrlC: 'interrupted by user',
} as const;

/** `[execution interrupted — R]`, or `[execution interrupted]` without a reason. */
export function interruptedNotice(reason: string | undefined): string {
  return reason ? `[execution interrupted — ${reason}]` : '[execution interrupted]';
}

// Timeouts.

/** What a command's output ends with when its timeout killed it (exit code 124). */
export const commandTimedOutNotice = (seconds: number): string => `[Command timed out after ${seconds}s and was killed]`;

/** A one-shot execute_code script that ran past code_execution.timeout. */
export const scriptTimedOutNotice = (seconds: number): string => `Script timed out after ${seconds}s and was killed.`;

// Session kernels.

const FRESH_KERNEL = 'The next execute_code call starts a fresh kernel.';

/** A cell ran past code_execution.timeout: the kernel was killed with it. */
export const cellTimedOutNotice = (seconds: number): string =>
  `Cell timed out after ${seconds}s; the session kernel was killed and its state was lost. ${FRESH_KERNEL}`;

/** An interrupted cell's error: the notice, then what became of the kernel. */
export const kernelInterruptedNotice = (reason: string | undefined): string =>
  `${interruptedNotice(reason)} The session kernel was killed and its state was lost. ${FRESH_KERNEL}`;

/** A cell called sys.exit(code); `code` is the int, null for none, or the text of anything else. */
export const kernelExitNotice = (code: number | string | null): string =>
  `[sys.exit(${code === null ? '' : JSON.stringify(code)}) ended the session kernel; its state was lost. ${FRESH_KERNEL}]`;

/** The kernel ended while a cell ran, without the cell asking (`killed by SIGKILL`, …). */
export const kernelDiedNotice = (detail: string): string =>
  `The session kernel died while running the cell (${detail}); its state was lost. ${FRESH_KERNEL}`;

/** A cell sent to a kernel still running another: it was not run, and the running one goes on. */
export const KERNEL_BUSY_NOTICE = 'The session kernel is still running another cell; this code was not run. Try again when that cell has ended.';

/** A call whose enabled tools differ from the previous call's restarted the kernel. */
export const TOOLS_CHANGED_NOTE =
  'The enabled tools changed, so the session kernel was restarted with a new hermes_tools; its state was lost.';

/** What the person is told, once, when their thread's turn runs on another instance than the one whose kernel held its state. */
export const KERNEL_MOVED_NOTICE =
  'This thread moved to another gateway instance; variables and imports from earlier execute_code runs are gone.';

/** The same for the model, in that turn's system note. */
export const KERNEL_MOVED_NOTE =
  '[System note: this thread moved to another gateway instance; variables and imports from earlier execute_code runs are gone. Import and compute again what you need.]';

/** No session kernel could start, so the call ran one-shot (`kernel.note`). */
export const kernelUnavailableNote = (why: string): string =>
  `session kernel unavailable: ${why}; this call ran as a one-shot script and keeps no state`;

// Long threads: pruned outputs, summaries, compaction.

/** What an old execute_code output becomes while the kernel that made it lives. */
export const PRUNED_KERNEL_OUTPUT = '[output pruned — the data is still in the session kernel]';
/** What a pruned execute_code output says once the kernel that held its data has ended. */
export const PRUNED_KERNEL_GONE = '[output pruned — the kernel that held its data has ended; run the code again if you need it]';
/** What any other old tool output becomes. */
export const PRUNED_OUTPUT = '[output pruned to save context — run the tool again if you need it]';
/** The first words of the message that stands for summarised turns. */
export const SUMMARY_MARKER = '[Summary of the earlier conversation';

/** 850, 7.4k, 120k: a token count as the notices show it. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(Math.round(tokens));
  if (tokens < 10_000) return `${(tokens / 1000).toFixed(1)}k`;
  return `${Math.round(tokens / 1000)}k`;
}

/** The line the chat gets after a compaction. */
export function compactionNotice(outcome: { turns: number; pruned: number; before: number; after: number }): string {
  const sizes = `${formatTokens(outcome.before)} → ${formatTokens(outcome.after)} tokens`;
  if (outcome.turns > 0) return `compacted ${outcome.turns} turn${outcome.turns === 1 ? '' : 's'}: ${sizes}`;
  return `compacted ${outcome.pruned} old tool output${outcome.pruned === 1 ? '' : 's'}: ${sizes}`;
}

/** The reply when no compaction can make the conversation fit. */
export function noRoomMessage(tokens: number, window: number, why: string): string {
  return (
    `This conversation no longer fits the model's context window (about ${formatTokens(tokens)} tokens of ${formatTokens(window)}) ` +
    `and compacting it cannot make room: ${why}. Send /new to start a fresh session (this one stays in state.db), ` +
    'or /undo to drop the last turn.'
  );
}
