// Bundles what `hermes exec` runs (dist/src/cli/commands/exec-run.js, the tsc output) into
// dist/exec-bundle: one ES module plus chunks for what it imports lazily (the approvals
// engine, the SSH and Docker environments, the web tools), so a run loads a handful of files
// instead of hundreds. src/cli/exec-bundle.ts loads it while its manifest matches dist/.
import { build } from 'esbuild';
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outdir = join(dist, 'exec-bundle');
const entry = join(dist, 'src/cli/commands/exec-run.js');

// Native addons and libraries exec never evaluates stay imports of node_modules.
const external = ['better-sqlite3', 'pg', 'ioredis', '@modelcontextprotocol/sdk', 'openai', '@slack/bolt', 'discord.js', 'grammy', 'hono', '@hono/node-server'];

statSync(entry); // fails with the path when tsc has not run
rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { 'exec-run': entry },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  // Bundled CommonJS packages (pino, yaml) call require() for Node's built-ins.
  banner: { js: "import { createRequire as __hermesCreateRequire } from 'node:module'; const require = __hermesCreateRequire(import.meta.url);" },
});

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
writeFileSync(join(outdir, 'manifest.json.tmp'), JSON.stringify({ entry: 'exec-run.js', inputs }));
renameSync(join(outdir, 'manifest.json.tmp'), join(outdir, 'manifest.json'));
