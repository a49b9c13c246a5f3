import { StringDecoder } from 'node:string_decoder';
import { cleanOutput } from '../shared/clean-output.js';

/** Most characters of one call's output shown live; the result still carries what the executor kept. */
const MAX_LIVE_CHARS = 100_000;

/**
 * A running script's stdout as whole lines for `emit`, cleaned (ANSI stripped, credentials
 * masked) as its result will be. Lines, not chunks: a secret or an escape sequence cut across
 * two chunks is masked or stripped once whole. At most `MAX_LIVE_CHARS` per call.
 */
export function liveOutput(emit: (text: string) => void, options: { redact: boolean }): { push: (chunk: Buffer) => void; end: () => void } {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let shown = 0;
  const flush = (text: string) => {
    if (!text || shown >= MAX_LIVE_CHARS) return;
    const clean = cleanOutput(text, { redact: options.redact }).slice(0, MAX_LIVE_CHARS - shown);
    shown += clean.length;
    try {
      emit(clean);
    } catch {
      // Rendering must never reach the script.
    }
  };
  return {
    push(chunk) {
      pending += decoder.write(chunk);
      const cut = pending.lastIndexOf('\n');
      if (cut < 0) {
        // A line that never ends (a progress bar) still shows, in pieces.
        if (pending.length > 4096) {
          flush(pending);
          pending = '';
        }
        return;
      }
      flush(pending.slice(0, cut + 1));
      pending = pending.slice(cut + 1);
    },
    end() {
      flush(pending + decoder.end());
      pending = '';
    },
  };
}
