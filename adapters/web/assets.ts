import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

export interface Asset {
  body: string;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The page's own files, kept as source (no front-end build): adapters/web/static/. */
const PAGE_FILES = ['index.html', 'app.js', 'api.js', 'render.js', 'setup.js', 'threads.js', 'icons.js', 'style.css', 'icon.svg'] as const;

/**
 * The client libraries, served from node_modules at fixed addresses (the machine may have no
 * internet, and a CDN would widen the Content-Security-Policy).
 */
function vendorFiles(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const highlightRoot = dirname(require.resolve('@highlightjs/cdn-assets/package.json'));
  return {
    '/vendor/marked.js': require.resolve('marked'),
    // dompurify's `require` entry is CommonJS; its ES module sits beside it.
    '/vendor/purify.js': join(dirname(require.resolve('dompurify')), 'purify.es.mjs'),
    // highlight.js with its common languages, as an ES module, and its GitHub themes.
    '/vendor/highlight.js': join(highlightRoot, 'es', 'highlight.min.js'),
    '/vendor/hljs-light.css': join(highlightRoot, 'styles', 'github.min.css'),
    '/vendor/hljs-dark.css': join(highlightRoot, 'styles', 'github-dark.min.css'),
  };
}

function typeOf(file: string): string {
  const dot = file.lastIndexOf('.');
  return TYPES[file.slice(dot)] ?? 'application/octet-stream';
}

/** Every file the page loads, by URL path; read once. Nothing else is served from disk. */
export function loadAssets(staticDir = join(packageRoot(), 'adapters', 'web', 'static')): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const name of PAGE_FILES) {
    const file = join(staticDir, name);
    assets.set(`/${name}`, { body: readFileSync(file, 'utf8'), type: typeOf(file) });
  }
  for (const [path, file] of Object.entries(vendorFiles())) {
    // Source-map comments would make the browser ask for files we do not serve.
    const body = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    assets.set(path, { body, type: typeOf(file) });
  }
  return assets;
}
