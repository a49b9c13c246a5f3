/** A page as text for the model. */
export interface ReadablePage {
  title: string;
  content: string;
}

/**
 * HTML to readable markdown: Readability picks the article (as Firefox's reader view does)
 * and Turndown writes it as markdown. Pages Readability cannot read fall back to the body.
 */
export async function htmlToMarkdown(html: string, url: string): Promise<ReadablePage> {
  const { convertHtml } = await import('./html-to-markdown.js');
  return convertHtml(html, url);
}

/** Decodes a body with the charset the server named, UTF-8 when it named none or an unknown one. */
export function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w-]+)"?/i.exec(contentType)?.[1];
  if (charset) {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // unknown label: fall through to UTF-8
    }
  }
  return new TextDecoder('utf-8').decode(body);
}
