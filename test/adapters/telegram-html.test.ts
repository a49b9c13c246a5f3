import { describe, expect, it } from 'vitest';
import { escapeHtml, markdownToTelegramHtml } from '../../adapters/telegram/index.js';
import { parseTelegramHtml } from '../fakes/telegram-html.js';

describe('markdownToTelegramHtml', () => {
  it('escapes &, < and > everywhere, including inside code', () => {
    expect(markdownToTelegramHtml('if a < b && c > d')).toBe('if a &lt; b &amp;&amp; c &gt; d');
    expect(markdownToTelegramHtml('`x<y>`')).toBe('<code>x&lt;y&gt;</code>');
    expect(escapeHtml('"q"', true)).toBe('&quot;q&quot;');
  });

  it('turns fenced code into pre/code with the language, and leaves markdown inside it alone', () => {
    const html = markdownToTelegramHtml('Run:\n```python\nprint("**hi**" if 1 < 2 else x)\n```\nok');
    expect(html).toBe('Run:\n<pre><code class="language-python">print("**hi**" if 1 &lt; 2 else x)</code></pre>\nok');
  });

  it('renders bold, italic, strike, links and headings, but not snake_case or lone asterisks', () => {
    expect(markdownToTelegramHtml('**bold** and *it* and ~~gone~~')).toBe('<b>bold</b> and <i>it</i> and <s>gone</s>');
    expect(markdownToTelegramHtml('see [docs](https://example.com/a?b=1&c=2)')).toBe(
      'see <a href="https://example.com/a?b=1&amp;c=2">docs</a>',
    );
    expect(markdownToTelegramHtml('## Result')).toBe('<b>Result</b>');
    expect(markdownToTelegramHtml('my_var_name and 2 * 3 * 4')).toBe('my_var_name and 2 * 3 * 4');
  });

  it('renders an unclosed code block as code', () => {
    expect(markdownToTelegramHtml('```\na < b')).toBe('<pre>a &lt; b</pre>');
  });
});

describe('markdownToTelegramHtml against the fake Bot API parser', () => {
  it('the fake refuses what Telegram refuses, with its error text', () => {
    expect(parseTelegramHtml('<b>x')).toEqual({
      ok: false,
      description: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    });
    expect(parseTelegramHtml('a <script> b')).toEqual({
      ok: false,
      description: `Bad Request: can't parse entities: Unsupported start tag "script" at byte offset 2`,
    });
    expect(parseTelegramHtml('&lt;b&gt; &amp; &#65;')).toEqual({ ok: true, text: '<b> & A' });
  });

  it('always produces HTML Telegram accepts, and plain text comes through unchanged', () => {
    const hostile = [
      '<b>not bold</b> & <i>',
      '**unclosed bold and `code <x>',
      '```\n<pre></pre>\n```',
      '[link](https://e.com/?a=<b>&c="d") **[x](https://y.z)**',
      'snake_case_name * star _ under ~~ tilde',
      '# <h1>',
      'ünïcödé — 😀 < ≥ &amp;',
    ];
    for (const text of hostile) {
      const parsed = parseTelegramHtml(markdownToTelegramHtml(text));
      expect(parsed.ok, `${text} → ${markdownToTelegramHtml(text)}`).toBe(true);
    }
    const plain = 'if (a < b && c > d) { return "x"; } // 100% & more';
    expect(parseTelegramHtml(markdownToTelegramHtml(plain))).toEqual({ ok: true, text: plain });
  });
});
