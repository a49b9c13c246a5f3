import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The folder holding hermes-gateway's package.json. Works from the TypeScript sources
 * (tests) and from the compiled `dist/` tree alike, so assets such as the Python kernel
 * runner are found at one path.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'hermes-gateway') return (cached = dir);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('hermes-gateway: cannot find the package root from ' + import.meta.url);
    dir = parent;
  }
}
