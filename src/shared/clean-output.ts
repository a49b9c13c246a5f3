import stripAnsi from 'strip-ansi';
import { redactSecrets } from './redact.js';

export interface CleanOutputOptions {
  /** Mask credential-shaped strings (`code_execution.redact_secrets`). */
  redact: boolean;
  /** Hears the pattern name of each mask (never the secret). */
  onMask?: (name: string) => void;
}

/** ESC and the C1 CSI byte that a sequence cut short may leave (from code points: the linter bans control characters in a regex literal). */
const STRAY_ESCAPES = new RegExp(`[${String.fromCharCode(0x1b)}${String.fromCharCode(0x9b)}]`, 'g');

/**
 * What the model sees of a process's output: ANSI escape sequences (CSI colours and cursor
 * moves, OSC titles and links, other ESC sequences) removed, with any ESC byte a cut left
 * behind, and credential-shaped strings masked when `redact` is on.
 */
export function cleanOutput(text: string, options: CleanOutputOptions): string {
  const plain = stripAnsi(text).replace(STRAY_ESCAPES, '');
  return options.redact ? redactSecrets(plain, options.onMask) : plain;
}
