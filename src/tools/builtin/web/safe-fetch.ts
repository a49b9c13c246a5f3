import http from 'node:http';
import https from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { addressPolicy, type AddressPolicy } from './address-guard.js';

export interface SafeFetchOptions {
  /** Milliseconds for the whole fetch, redirects included. */
  timeoutMs: number;
  /** Bytes of (decoded) body kept; reading stops past it. */
  maxBytes: number;
  maxRedirects: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Addresses checks let through (tests only; see addressPolicy). */
  treatAsPublic?: ReadonlySet<string>;
}

export interface FetchedPage {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** True when the body was cut at `maxBytes`. */
  cut: boolean;
}

/** A fetch that did not give a page; the message is meant for the model. */
export class FetchError extends Error {
  override readonly name = 'FetchError';
}

const USER_AGENT = 'Mozilla/5.0 (compatible; hermes-gateway web_extract)';

interface Hop {
  status: number;
  headers: http.IncomingHttpHeaders;
  stream: http.IncomingMessage;
}

function request(url: URL, policy: AddressPolicy | undefined, signal: AbortSignal): Promise<Hop> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method: 'GET',
        signal,
        // No pooled sockets: a kept-alive connection would skip the address check of `lookup`.
        agent: false,
        headers: {
          'User-Agent': USER_AGENT,
          Accept: 'text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5',
          'Accept-Encoding': 'gzip, deflate, br',
        },
        ...(policy ? { lookup: policy.lookup } : {}),
      },
      (res) => resolve({ status: res.statusCode ?? 0, headers: res.headers, stream: res }),
    );
    req.on('error', reject);
    req.end();
  });
}

function decoded(hop: Hop): Readable {
  const encoding = String(hop.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return hop.stream.pipe(createGunzip());
  if (encoding === 'deflate') return hop.stream.pipe(createInflate());
  if (encoding === 'br') return hop.stream.pipe(createBrotliDecompress());
  return hop.stream;
}

/** Reads at most `maxBytes` of the decoded body, then stops reading. */
async function readCapped(hop: Hop, maxBytes: number): Promise<{ body: Buffer; cut: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  let cut = false;
  const stream = decoded(hop);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const room = maxBytes - size;
    if (chunk.length >= room) {
      parts.push(chunk.subarray(0, room));
      size += room;
      cut = chunk.length > room;
      break;
    }
    parts.push(chunk);
    size += chunk.length;
  }
  if (cut || size >= maxBytes) hop.stream.destroy();
  return { body: Buffer.concat(parts), cut };
}

/** Checks a URL the fetch may go to: http(s) only, and no blocked IP literal. */
function admit(url: URL, policy: AddressPolicy | undefined): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(`only http and https URLs can be fetched, not ${url.protocol}`);
  }
  policy?.checkLiteralHost(url);
}

/**
 * GETs a page with node:http(s): every hop's address is checked after DNS resolution
 * (unless private addresses are allowed), redirects are followed up to a limit and
 * re-checked, the body is capped, and one deadline covers it all.
 */
export async function safeFetch(target: string, options: SafeFetchOptions): Promise<FetchedPage> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new FetchError(`not a valid URL: ${JSON.stringify(target)}`);
  }
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const policy = options.allowPrivate ? undefined : addressPolicy(options.treatAsPublic);
  try {
    for (let redirects = 0; ; redirects++) {
      admit(url, policy);
      const hop = await request(url, policy, signal);
      const location = hop.headers.location;
      if (hop.status >= 300 && hop.status < 400 && location) {
        hop.stream.resume();
        if (redirects >= options.maxRedirects) {
          throw new FetchError(`too many redirects (more than web.max_redirects = ${options.maxRedirects})`);
        }
        url = new URL(location, url);
        continue;
      }
      const contentType = String(hop.headers['content-type'] ?? '');
      if (hop.status < 200 || hop.status >= 300) {
        hop.stream.resume();
        throw new FetchError(`HTTP ${hop.status} from ${url.href}`);
      }
      const rejection = binaryContentType(contentType);
      if (rejection) {
        hop.stream.destroy();
        throw new FetchError(`refused binary content (${rejection}) from ${url.href}`);
      }
      const { body, cut } = await readCapped(hop, options.maxBytes);
      return { url: url.href, status: hop.status, contentType, body, cut };
    }
  } catch (error) {
    if (deadline.aborted) throw new FetchError(`no complete answer within ${options.timeoutMs / 1000}s (web.timeout)`);
    throw error;
  }
}

/** The MIME type when it is not text web_extract can read, else undefined. */
export function binaryContentType(contentType: string): string | undefined {
  const mime = contentType.split(';')[0].trim().toLowerCase();
  if (mime === '') return undefined; // decided later by sniffing the bytes
  if (mime.startsWith('text/')) return undefined;
  if (/^application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-javascript|ld\+json|x-ndjson|rss\+xml|atom\+xml|x-yaml|yaml|toml)$/.test(mime)) {
    return undefined;
  }
  if (/\+(json|xml)$/.test(mime)) return undefined;
  return mime;
}
