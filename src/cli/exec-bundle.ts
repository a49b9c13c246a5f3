import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

/** What `hermes exec` runs: exec-run.ts, from the bundle or from its modules. */
export type ExecRunner = typeof import('./commands/exec-run.js');

/**
 * dist/exec-bundle/manifest.json, written by scripts/bundle-exec.mjs: the bundle (a CommonJS
 * file), its V8 code cache, and for each compiled module it holds (paths relative to dist/)
 * its size and mtime at bundling.
 */
export interface ExecBundleManifest {
  entry: string;
  cache: string;
  inputs: Record<string, [size: number, mtimeMs: number]>;
}

/** dist/ when this runs compiled (dist/src/cli/exec-bundle.js); from the sources it names a folder with no bundle. */
const DIST = fileURLToPath(new URL('../../', import.meta.url));

function readManifest(bundleDir: string): ExecBundleManifest | undefined {
  try {
    return JSON.parse(readFileSync(join(bundleDir, 'manifest.json'), 'utf8')) as ExecBundleManifest;
  } catch {
    return undefined;
  }
}

/**
 * True when every compiled module the bundle holds is still the file it was built from: the
 * same size and not written since. A `tsc` run after `npm run build` rewrites them, and exec
 * then runs the new modules rather than a bundle of the old ones. An older mtime is fine:
 * `npm pack` sets every file's to 1985.
 */
export function bundleIsCurrent(manifest: ExecBundleManifest, distDir: string = DIST): boolean {
  for (const [path, [size, mtimeMs]] of Object.entries(manifest.inputs)) {
    const stat = statSync(join(distDir, path), { throwIfNoEntry: false });
    if (!stat || stat.size !== size || stat.mtimeMs > mtimeMs) return false;
  }
  return true;
}

type ImportFunction = (specifier: string) => Promise<unknown>;
type CommonJsWrapper = (exports: object, require: NodeJS.Require, module: { exports: object }, filename: string, dirname: string, hermesImport: ImportFunction) => void;

/**
 * The bundle's import(): scripts/bundle-exec.mjs writes the bundle's dynamic imports (a
 * plugin's entry, a lazy module left outside) as calls of this parameter, because on Node 20
 * an import() compiled from a code cache has no loader to go to. Relative specifiers are
 * the bundle's own; the rest resolve as from dist/, in the same package.
 */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname, __hermesImport) { ';
const WRAPPER_TAIL = '\n})';

/** A CommonJS file evaluated the way require() does, through a vm.Script that can take (and make) V8's code cache. */
export interface EvaluatedBundle {
  exports: object;
  script: Script;
}

/**
 * Compiles and runs the CommonJS `file` with `cachedData` (V8 checks it belongs to this
 * source and this V8, and compiles from scratch when not: script.cachedDataRejected).
 * `__hermesImport(specifier)` inside it is import() through Node's own ES module loader.
 */
export function evaluateBundle(file: string, cachedData?: Buffer): EvaluatedBundle {
  const script = new Script(WRAPPER_HEAD + readFileSync(file, 'utf8') + WRAPPER_TAIL, { filename: file, cachedData });
  const wrapper = script.runInThisContext() as CommonJsWrapper;
  const module = { exports: {} };
  const base = pathToFileURL(file);
  const hermesImport: ImportFunction = (specifier) => import(specifier.startsWith('.') ? new URL(specifier, base).href : specifier);
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), hermesImport);
  return { exports: module.exports, script };
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * The exec runner from dist/exec-bundle (one file instead of hundreds of modules to resolve
 * and load, compiled from the code cache the build made) when it is built and current, else
 * from exec-run.ts's modules. HERMES_EXEC_BUNDLE=0 forces the modules.
 */
export async function loadExecRunner(options: { env?: NodeJS.ProcessEnv; distDir?: string } = {}): Promise<ExecRunner> {
  const env = options.env ?? {};
  const distDir = options.distDir ?? DIST;
  const bundleDir = join(distDir, 'exec-bundle');
  const manifest = env.HERMES_EXEC_BUNDLE === '0' ? undefined : readManifest(bundleDir);
  if (manifest && bundleIsCurrent(manifest, distDir)) {
    // Built from exec-run.ts by scripts/bundle-exec.mjs: its exports are that module's.
    return evaluateBundle(join(bundleDir, manifest.entry), readCache(join(bundleDir, manifest.cache))).exports as ExecRunner;
  }
  return import('./commands/exec-run.js');
}
