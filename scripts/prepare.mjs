// npm's `prepare`: builds after `npm install` when dist/ is missing or older than the sources,
// and never on `npx hermes` (npm exec runs prepare too): that would rebuild dist/ under a
// running gateway and add seconds to every first call. A stale dist/ there gets a note instead.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const built = join(root, 'dist/src/cli/main.js');

/** The newest modification time under the paths (files ending in .ts, .mjs, .json, .py). */
function newest(paths) {
  let latest = 0;
  const walk = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules') walk(join(path, name));
    } else if (/\.(ts|mjs|json|py)$/.test(path)) latest = Math.max(latest, stat.mtimeMs);
  };
  for (const path of paths) walk(join(root, path));
  return latest;
}

const viaNpx = process.env.npm_command === 'exec';
const upToDate = existsSync(built) && statSync(built).mtimeMs >= newest(['src', 'adapters', 'bench', 'scripts/bundle-exec.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json']);
if (upToDate) process.exit(0);
if (viaNpx) {
  process.stderr.write(
    existsSync(built)
      ? 'hermes-gateway: dist/ is older than the sources; run `npm run build` to use the changes (npx does not build).\n'
      : 'hermes-gateway: dist/ is not built; run `npm run build` (or `npm install`) once in the clone.\n',
  );
  process.exit(0);
}
const run = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
process.exit(run.status ?? 1);
