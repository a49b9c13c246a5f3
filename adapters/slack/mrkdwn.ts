/**
 * Markdown (what the model writes) to Slack mrkdwn (what Slack renders).
 * Slack needs `&`, `<`, `>` escaped, knows `*bold*`, `_italic_`, `~strike~`, `<url|text>`,
 * and shows a fence's language tag as text, so it is dropped.
 */
export function markdownToMrkdwn(markdown: string): string {
  const parts = markdown.split(/(```[^\n]*\n[\s\S]*?```)/g);
  return parts
    .map((part, index) => (index % 2 === 1 ? fence(part) : prose(part)))
    .join('');
}

/** Escapes the three characters Slack treats as markup. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Undoes Slack's escaping of inbound message text. */
export function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function fence(block: string): string {
  const body = block.replace(/^```[^\n]*\n/, '').replace(/```$/, '');
  return '```\n' + escapeSlack(body) + '```';
}

// Placeholders use control characters that never appear in model text.
const HOLD = '\u0000';
const BOLD = '\u0001';

function prose(text: string): string {
  const held: string[] = [];
  const hold = (value: string): string => `${HOLD}${held.push(value) - 1}${HOLD}`;
  let out = text
    .replace(/`([^`\n]+)`/g, (_m, code: string) => hold('`' + escapeSlack(code) + '`'))
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, (_m, label: string, url: string) =>
      hold(`<${escapeSlack(url)}|${escapeSlack(label).replace(/\|/g, '¦')}>`),
    );
  out = escapeSlack(out)
    .replace(/^(\s*)[-*+] /gm, '$1• ')
    .replace(/^#{1,6}\s+(.+?)\s*#*$/gm, `${BOLD}$1${BOLD}`)
    .replace(/\*\*(?=\S)([^*\n]+?)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/__(?=\S)([^_\n]+?)__/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^*\w])\*(?=\S)([^*\n]+?)\*(?!\w)/g, '$1_$2_')
    .replace(/~~(?=\S)([^~\n]+?)~~/g, '~$1~');
  out = out.replace(new RegExp(BOLD, 'g'), '*');
  return out.replace(new RegExp(`${HOLD}(\\d+)${HOLD}`, 'g'), (_m, index: string) => held[Number(index)]);
}
