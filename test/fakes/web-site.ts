import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/*
 * A small website on a loopback address for web_extract: an article page, plain text,
 * JSON, a PNG, a gzip-encoded page, a huge page, a slow page, and redirects (to a path,
 * in a loop, or to any URL given in `?to=`).
 */

export const ARTICLE_HTML = `<!doctype html>
<html><head><title>The Fox Report</title><style>body{color:red}</style></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article>
<h1>The Fox Report</h1>
<p>The quick brown fox jumps over the lazy dog. This paragraph is long enough for a reader view to count it as the body of the article, with several sentences of text about foxes and dogs.</p>
<p>Foxes are <strong>quick</strong> and <em>brown</em>. Dogs, in this story, are lazy. Read <a href="/more">more about foxes</a> on the next page.</p>
<h2>Findings</h2>
<ul><li>Foxes jump.</li><li>Dogs lie still.</li></ul>
<pre><code>print("fox")</code></pre>
<p>Another paragraph that keeps the article long enough to be considered readable content by the reader algorithm, which prefers pages with real prose.</p>
</article>
<script>alert('no scripts in the output')</script>
<footer>Copyright nobody</footer>
</body></html>`;

export interface FakeSite {
  /** `http://HOST:PORT` */
  origin: string;
  host: string;
  port: number;
  /** Paths requested, in order. */
  hits: string[];
  close(): Promise<void>;
}

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://site');
  switch (url.pathname) {
    case '/article':
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(ARTICLE_HTML);
    case '/gzip':
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Encoding': 'gzip' });
      return void res.end(gzipSync(ARTICLE_HTML));
    case '/latin1':
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=iso-8859-1' });
      return void res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café\n"
    case '/notes.txt':
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      return void res.end('plain notes\nline two\n');
    case '/data.json':
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end('{"items":[1,2,3]}');
    case '/image.png':
      res.writeHead(200, { 'Content-Type': 'image/png' });
      return void res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
    case '/untyped-binary':
      res.writeHead(200, {});
      return void res.end(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0]));
    case '/huge': {
      // Streams far more than any cap, slowly enough that the reader must stop early.
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      let sent = 0;
      const line = `${'z'.repeat(1023)}\n`;
      const pump = () => {
        while (sent < 50_000_000) {
          sent += line.length;
          if (!res.write(line)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (sent = Infinity));
      return pump();
    }
    case '/slow':
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('start\n');
      return void setTimeout(() => res.end('late\n'), 10_000).unref();
    case '/missing':
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return void res.end('not here');
    case '/redirect':
      res.writeHead(302, { Location: url.searchParams.get('to') ?? '/article' });
      return void res.end();
    case '/loop':
      res.writeHead(301, { Location: '/loop' });
      return void res.end();
    default:
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      return void res.end('no such page');
  }
}

/** Starts the site on `host` (default 127.0.0.1), on a free port. */
export async function startFakeSite(host = '127.0.0.1'): Promise<FakeSite> {
  const hits: string[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    route(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    host,
    port,
    hits,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
