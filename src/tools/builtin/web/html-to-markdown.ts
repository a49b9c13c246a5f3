import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import type { ReadablePage } from './readable.js';

// Loaded only when a page is extracted: these libraries cost hundreds of milliseconds to
// import, which every `hermes exec` would otherwise pay.

function turndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  service.remove(['script', 'style', 'noscript', 'iframe', 'template']);
  return service;
}

/**
 * HTML to readable markdown: Readability picks the article (as Firefox's reader view does)
 * and Turndown writes it as markdown. Pages Readability cannot read fall back to the body.
 */
export function convertHtml(html: string, url: string): ReadablePage {
  const { document } = parseHTML(html);
  const pageTitle = (document.title ?? '').trim();
  let article: ReturnType<Readability['parse']> = null;
  try {
    // Readability resolves relative links against the document's URL.
    const base = document.createElement('base');
    base.setAttribute('href', url);
    document.head?.appendChild(base);
    article = new Readability(document as unknown as Document).parse();
  } catch {
    article = null;
  }
  const service = turndown();
  if (article?.content) {
    return { title: (article.title ?? pageTitle).trim(), content: tidy(service.turndown(article.content)) };
  }
  const fallback = parseHTML(html).document;
  const body = fallback.body?.innerHTML ?? html;
  return { title: pageTitle, content: tidy(service.turndown(body)) };
}

function tidy(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}
