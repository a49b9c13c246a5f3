import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../adapters/slack/index.js';

describe('Markdown to Slack mrkdwn', () => {
  it('turns bold, italic, strike, headings and bullets into their mrkdwn forms', () => {
    expect(markdownToMrkdwn('# Title\n**bold** and *italic* and ~~gone~~\n- one\n* two')).toBe(
      '*Title*\n*bold* and _italic_ and ~gone~\n• one\n• two',
    );
  });

  it('writes links as <url|text> and escapes &, < and > everywhere else', () => {
    expect(markdownToMrkdwn('see [the docs](https://x.org/?a=1&b=2) if a < b && c > d')).toBe(
      'see <https://x.org/?a=1&amp;b=2|the docs> if a &lt; b &amp;&amp; c &gt; d',
    );
  });

  it('leaves code alone apart from escaping, and drops the fence language tag Slack would print', () => {
    const md = 'run `a**b**<c`:\n```python\nprint(2 ** 3 < 9)  # *not italic*\n```\ndone';
    expect(markdownToMrkdwn(md)).toBe('run `a**b**&lt;c`:\n```\nprint(2 ** 3 &lt; 9)  # *not italic*\n```\ndone');
  });

  it('cannot be used to ping the channel: <!channel> arrives escaped', () => {
    expect(markdownToMrkdwn('<!channel> wake up')).toBe('&lt;!channel&gt; wake up');
  });
});
