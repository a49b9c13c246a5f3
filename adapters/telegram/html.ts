/*
 * Markdown (as the model writes it) to Telegram's HTML parse mode. Only what Telegram
 * supports is produced (b, i, s, code, pre, a), every other character is escaped, and tags
 * always pair up within a line or a code block, so a reply cut into chunks stays valid.
 */

/** Escapes text for Telegram HTML: `&`, `<` and `>` (and `"` inside attributes). */
export function escapeHtml(text: string, attribute = false): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return attribute ? escaped.replace(/"/g, '&quot;') : escaped;
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/;

/** Converts a Markdown reply to Telegram HTML. */
export function markdownToTelegramHtml(markdown: string): string {
  const out: string[] = [];
  let code: { fence: string; language: string; lines: string[] } | undefined;
  for (const line of markdown.split('\n')) {
    const fence = FENCE.exec(line);
    if (code) {
      if (fence && fence[1][0] === code.fence[0] && fence[1].length >= code.fence.length && !fence[2]) {
        out.push(codeBlock(code.language, code.lines));
        code = undefined;
      } else {
        code.lines.push(line);
      }
      continue;
    }
    if (fence) {
      code = { fence: fence[1], language: fence[2], lines: [] };
      continue;
    }
    out.push(inline(line));
  }
  // An unclosed block (the model stopped mid-way) still renders as code.
  if (code) out.push(codeBlock(code.language, code.lines));
  return out.join('\n');
}

function codeBlock(language: string, lines: string[]): string {
  const body = escapeHtml(lines.join('\n'));
  return language ? `<pre><code class="language-${escapeHtml(language, true)}">${body}</code></pre>` : `<pre>${body}</pre>`;
}

/** One line outside code blocks: inline code, links, bold, italic, strike, headings. */
function inline(line: string): string {
  const heading = /^#{1,6}\s+(.*)$/.exec(line);
  if (heading) return `<b>${inline(heading[1])}</b>`;
  let html = '';
  let rest = line;
  // Inline code is taken out first so that nothing inside it is formatted.
  for (;;) {
    const match = /`([^`\n]+)`/.exec(rest);
    if (!match) break;
    html += emphasis(rest.slice(0, match.index)) + `<code>${escapeHtml(match[1])}</code>`;
    rest = rest.slice(match.index + match[0].length);
  }
  return html + emphasis(rest);
}

function emphasis(text: string): string {
  let html = '';
  let rest = text;
  for (;;) {
    const link = /\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/.exec(rest);
    if (!link) break;
    html += styles(rest.slice(0, link.index)) + `<a href="${escapeHtml(link[2], true)}">${styles(link[1])}</a>`;
    rest = rest.slice(link.index + link[0].length);
  }
  return html + styles(rest);
}

function styles(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, '<b>$1</b>')
    .replace(/__(?=\S)([^_]*?\S)__/g, '<b>$1</b>')
    .replace(/~~(?=\S)([^~]*?\S)~~/g, '<s>$1</s>')
    .replace(/(^|[^\w*])\*(?=\S)([^*]*?\S)\*(?![\w*])/g, '$1<i>$2</i>')
    .replace(/(^|[^\w])_(?=\S)([^_]*?\S)_(?!\w)/g, '$1<i>$2</i>');
}
