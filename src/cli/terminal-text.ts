import stripAnsi from 'strip-ansi';

/** Control characters a terminal acts on, other than newline and tab (C0, DEL, C1). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text from the model or a tool as a terminal may show it: escape sequences (colours, cursor
 * moves, titles, OSC 8 links, clipboard writes) and other control characters taken out, so a
 * reply cannot rewrite the screen, the prompt or the clipboard. Carriage returns become newlines.
 */
export function terminalText(text: string): string {
  return stripAnsi(text).replace(/\r\n?/g, '\n').replace(CONTROL, '');
}
