/*
 * Code fences in a reply that is still being written: which one is open at the end, and the
 * text with it closed, so every edit of a streamed message shows a valid code block.
 */

const FENCE = /^\s*(`{3,}|~{3,})/;
/** A fence line longer than this is text (as split.ts treats it). */
const MAX_FENCE_LINE = 40;

/** The fence (```` ``` ```` or `~~~`, with its length) a line opens or closes, if it is a fence line. */
export function fenceOf(line: string): string | undefined {
  if (line.length > MAX_FENCE_LINE) return undefined;
  return FENCE.exec(line)?.[1];
}

/** The line that opened the code block still open at the end of `text`, if one is. */
export function openFence(text: string): string | undefined {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    if (!fenceOf(line)) continue;
    open = open ? undefined : line;
  }
  return open;
}

/** The line that closes the block `opener` opened. */
export function closerOf(opener: string): string {
  return fenceOf(opener) ?? '```';
}

/** `text` with its open code block closed (unchanged when none is open). */
export function closeFences(text: string): string {
  const open = openFence(text);
  return open ? `${text}${text.endsWith('\n') ? '' : '\n'}${closerOf(open)}` : text;
}
