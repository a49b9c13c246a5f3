import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { Tool } from '../types.js';
import type { ToolContext } from '../types.js';
import { abortReason, interruptedNotice } from '../../shared/notices.js';
import { errorMessage } from '../../shared/errors.js';
import { decodeBody, htmlToMarkdown } from './web/readable.js';

/** URLs one call may fetch; more is a job for several calls (or a script loop). */
const MAX_URLS = 20;
/** Pages fetched at once. */
const CONCURRENCY = 4;

const args = z.strictObject({
  urls: z
    .union([z.string().min(1).transform((url) => [url]), z.array(z.string().min(1)).min(1).max(MAX_URLS)])
    .describe(`URLs to read (a list, at most ${MAX_URLS})`),
  char_limit: z.number().int().min(1).nullable().default(null).describe('Characters kept per page; default web.extract_char_limit'),
});

type PageResult = { url: string; title: string; content: string } | { url: string; title: string; error: string };

function cutTo(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n\n[content truncated: showing ${limit} of ${text.length} characters]`;
}

async function extractOne(url: string, charLimit: number, ctx: ToolContext): Promise<PageResult> {
  const web = ctx.config.web;
  try {
    // Loaded at the first fetch: node:http, https, zlib and dns cost `hermes exec` a start-up otherwise.
    const { safeFetch } = await import('./web/safe-fetch.js');
    const page = await safeFetch(url, {
      timeoutMs: web.timeout * 1000,
      maxBytes: web.max_bytes,
      maxRedirects: web.max_redirects,
      allowPrivate: web.allow_private_addresses,
      signal: ctx.signal,
    });
    const mime = page.contentType.split(';')[0].trim().toLowerCase();
    if (mime === '' && page.body.subarray(0, 8000).includes(0)) {
      return { url, title: '', error: `refused binary content (no content type, binary bytes) from ${page.url}` };
    }
    const text = decodeBody(page.body, page.contentType);
    const isHtml = mime === 'text/html' || mime === 'application/xhtml+xml' || (mime === '' && /^\s*<(!doctype html|html)/i.test(text));
    const { title, content } = isHtml ? await htmlToMarkdown(text, page.url) : { title: '', content: text };
    const note = page.cut ? `\n\n[page cut at ${web.max_bytes} bytes (web.max_bytes)]` : '';
    return { url, title, content: cutTo(content + note, charLimit) };
  } catch (error) {
    if (ctx.signal.aborted) return { url, title: '', error: `web_extract: ${url}: ${interruptedNotice(abortReason(ctx.signal))}` };
    return { url, title: '', error: `web_extract: ${url}: ${errorMessage(error)}` };
  }
}

/** `web_extract(urls, char_limit=None)` → `{"results": [{url, title, content}]}`; a failed URL has `error`. */
export function webExtractTool(): Tool {
  return defineTool({
    name: 'web_extract',
    description:
      'Fetch web pages and return their readable text as markdown: {"results": [{"url", "title", "content"}]}. ' +
      'A URL that fails has "error" instead of "content". HTML is reduced to the article; text and JSON pass through.',
    args,
    async run({ urls, char_limit: charLimit }, ctx) {
      const limit = charLimit ?? ctx.config.web.extract_char_limit;
      const results: PageResult[] = new Array(urls.length);
      let next = 0;
      const worker = async () => {
        while (next < urls.length) {
          const index = next++;
          results[index] = await extractOne(urls[index], limit, ctx);
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, urls.length) }, worker));
      return { results };
    },
  });
}
