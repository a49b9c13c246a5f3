import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What `hermes exec` runs: exec-run.ts, from the bundle or from its modules. */
export type ExecRunner = typeof import('./commands/exec-run.js');

/**
 * dist/exec-bundle/manifest.json, written by scripts/bundle-exec.mjs: the bundle's entry and,
 * for each compiled module it holds (paths relative to dist/), its size and mtime at bundling.
 */
export interface ExecBundleManifest {
  entry: string;
  inputs: Record<string, [size: number, mtimeMs: number]>;
}

/** dist/ when this runs compiled (dist/src/cli/exec-bundle.js); from the sources it names a folder with no bundle. */
const DIST = new URL('../../', import.meta.url);

function readManifest(bundleDir: URL): ExecBundleManifest | undefined {
  try {
    return JSON.parse(readFileSync(new URL('manifest.json', bundleDir), 'utf8')) as ExecBundleManifest;
  } catch {
    return undefined;
  }
}

/**
 * True when every compiled module the bundle holds is still the file it was built from. A
 * `tsc` run after `npm run build` rewrites them, and exec then runs the new modules rather
 * than a bundle of the old ones.
 */
export function bundleIsCurrent(manifest: ExecBundleManifest, distDir: URL = DIST): boolean {
  for (const [path, [size, mtimeMs]] of Object.entries(manifest.inputs)) {
    try {
      const stat = statSync(fileURLToPath(new URL(path, distDir)));
      if (stat.size !== size || stat.mtimeMs !== mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * The exec runner from dist/exec-bundle (one ES module and the chunks it imports when it
 * needs them: hundreds of module files fewer to resolve and load) when it is built and
 * current, else from exec-run.ts's modules. HERMES_EXEC_BUNDLE=0 forces the modules.
 */
export async function loadExecRunner(options: { env?: NodeJS.ProcessEnv; distDir?: URL } = {}): Promise<ExecRunner> {
  const env = options.env ?? process.env;
  const distDir = options.distDir ?? DIST;
  const bundleDir = new URL('exec-bundle/', distDir);
  const manifest = env.HERMES_EXEC_BUNDLE === '0' ? undefined : readManifest(bundleDir);
  if (manifest && bundleIsCurrent(manifest, distDir)) {
    const bundle: ExecRunner = await import(new URL(manifest.entry, bundleDir).href);
    return bundle;
  }
  return import('./commands/exec-run.js');
}
