import { afterAll, afterEach } from 'vitest';

type Release = () => Promise<unknown> | unknown;
type Keep = <T>(item: T, release: (item: T) => Promise<unknown> | unknown) => T;

/** A keeper whose releases run in `hook`, the last kept first; every release runs, the first error is thrown. */
function keeper(hook: (run: () => Promise<void>) => void): Keep {
  const kept: Release[] = [];
  hook(async () => {
    const errors: unknown[] = [];
    for (const release of kept.splice(0).reverse()) {
      await Promise.resolve()
        .then(release)
        .catch((error: unknown) => errors.push(error));
    }
    if (errors.length > 0) throw errors[0];
  });
  return (item, release) => {
    kept.push(() => release(item));
    return item;
  };
}

/**
 * Call at a test file's (or describe's) top level. `keep(item, release)` hands `item` back and
 * releases it after the test, passed or failed, the last kept first: a gateway kept after the
 * fake it talks to stops before that fake closes.
 */
export function releaseAfterEach(): Keep {
  return keeper((run) => afterEach(run));
}

/** The same for what a beforeAll starts: released after the describe's (or file's) last test. */
export function releaseAfterAll(): Keep {
  return keeper((run) => afterAll(run));
}
