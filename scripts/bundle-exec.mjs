// Bundles what `hermes exec` runs (dist/src/cli/commands/exec-run.js, the tsc output) into one
// CommonJS file, dist/exec-bundle/exec-run.cjs, and V8's code cache for it, so a run reads
// two files instead of resolving and compiling hundreds of modules. What exec imports lazily
// stays lazy (esbuild's wrappers run a module at its first import). src/cli/exec-bundle.ts
// loads it while its manifest matches dist/.
import { build } from 'esbuild';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outdir = join(dist, 'exec-bundle');
const entry = join(dist, 'src/cli/commands/exec-run.js');

// Native addons and libraries exec never evaluates stay imports of node_modules.
const external = ['better-sqlite3', 'pg', 'ioredis', '@modelcontextprotocol/sdk', 'openai', '@slack/bolt', 'discord.js', 'grammy', 'hono', '@hono/node-server'];

/**
 * Dynamic imports that stay outside the bundle become calls of `__hermesImport`, which
 * src/cli/exec-bundle.ts passes in: on Node 20 an import() in code compiled from a V8 code
 * cache finds no loader ("A dynamic import callback was not specified"). That covers a
 * computed import() in our modules (a plugin's entry) and web_extract's HTML to Markdown
 * module (1.4 MB of DOM libraries, no state of ours), imported from dist/ when a script calls it.
 */
const lazyModules = { './html-to-markdown.js': '../src/tools/builtin/web/html-to-markdown.js' };
const outsideImports = {
  name: 'outside-imports',
  setup(context) {
    context.onLoad({ filter: /[\\/]dist[\\/]src[\\/].*\.js$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      // import(<expression>) — not a literal path, which esbuild bundles (lazily).
      source = source.replace(/(?<![\w$.])import\((?=[^'"`)])/g, '__hermesImport(');
      for (const [specifier, fromBundle] of Object.entries(lazyModules)) {
        source = source.replaceAll(`import('${specifier}')`, `__hermesImport(${JSON.stringify(fromBundle)})`);
      }
      return { contents: source, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

statSync(entry); // fails with the path when tsc has not run
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: [entry],
  outfile: join(outdir, 'exec-run.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  external,
  plugins: [outsideImports],
  // package-root.ts finds the package from its own URL; in the bundle that is the bundle's.
  define: { 'import.meta.url': '__hermesImportMetaUrl' },
  banner: { js: 'var __hermesImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
});

// No import() may be left in the bundle: from the code cache it would fail at its first call.
const bundled = readFileSync(join(outdir, 'exec-run.cjs'), 'utf8');
const left = bundled.split('\n').map((line, index) => [index + 1, line]).filter(([, line]) => /(?<![\w$.])import\((?!\))/.test(line));
if (left.length > 0) throw new Error(`dist/exec-bundle/exec-run.cjs: import() left at line ${left.map(([n]) => n).join(', ')}; route it through __hermesImport in scripts/bundle-exec.mjs`);

// V8's code cache of the bundle once it has run its top level (so the functions that ran are
// in it), made by the loader exec uses. V8 rejects it under another Node, and exec compiles.
const { evaluateBundle } = await import(pathToFileURL(join(dist, 'src/cli/exec-bundle.js')).href);
const { script } = evaluateBundle(join(outdir, 'exec-run.cjs'));
writeFileSync(join(outdir, 'exec-run.cache'), script.createCachedData());

// Each compiled module of ours the bundle holds, with its size and mtime now: a later tsc run
// changes them, and exec then falls back to the modules.
const inputs = {};
for (const path of Object.keys(result.metafile.inputs).sort()) {
  if (!path.startsWith('dist/')) continue;
  const stat = statSync(join(root, path));
  inputs[relative('dist', path)] = [stat.size, stat.mtimeMs];
}
writeFileSync(join(outdir, 'meta.json'), JSON.stringify(result.metafile));
// The manifest last, by rename: until it is there, exec uses the modules.
writeFileSync(join(outdir, 'manifest.json.tmp'), JSON.stringify({ entry: 'exec-run.cjs', cache: 'exec-run.cache', inputs }));
renameSync(join(outdir, 'manifest.json.tmp'), join(outdir, 'manifest.json'));
