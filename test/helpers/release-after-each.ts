import { afterEach } from 'vitest';

type Release = () => Promise<unknown> | unknown;

/**
 * Call at a test file's (or describe's) top level. `keep(item, release)` hands `item` back and
 * releases it after the test, passed or failed, the last kept first: a gateway kept after the
 * fake it talks to stops before that fake closes. Every release runs; the first error is thrown.
 */
export function releaseAfterEach(): <T>(item: T, release: (item: T) => Promise<unknown> | unknown) => T {
  const kept: Release[] = [];
  afterEach(async () => {
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
