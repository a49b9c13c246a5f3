import { afterEach } from 'vitest';

/**
 * Call at a test file's (or describe's) top level: wraps `open` so that everything it opened
 * during a test is closed after that test, passed or failed.
 */
export function closeAfterEach<A extends unknown[], T extends { close(): void }>(open: (...args: A) => T): (...args: A) => T {
  const opened: T[] = [];
  afterEach(() => {
    for (const item of opened.splice(0)) item.close();
  });
  return (...args) => {
    const item = open(...args);
    opened.push(item);
    return item;
  };
}
