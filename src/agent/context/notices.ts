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
