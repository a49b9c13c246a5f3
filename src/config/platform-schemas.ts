import type { PlatformSchema } from './platform-keys.js';

/*
 * The platforms' config schemas, given by the entry that knows the registry (adapters/config.ts,
 * through the CLI and adapters/index.ts), so that nothing in src names a platform. Until they
 * are given, a platform section is read with the shared keys only (anyPlatformSection).
 */

let given: Readonly<Record<string, PlatformSchema>> | undefined;
const listeners: Array<() => void> = [];

/** Sets the schema of each platform section (`platforms.<name>`), in the order they are listed. */
export function usePlatformSchemas(schemas: Readonly<Record<string, PlatformSchema>>): void {
  if (given === schemas) return;
  given = schemas;
  for (const listener of listeners) listener();
}

/** The schemas given, if any. */
export function platformSchemas(): Readonly<Record<string, PlatformSchema>> | undefined {
  return given;
}

/** Calls `listener` whenever other schemas are given (the composed config schema is rebuilt). */
export function onPlatformSchemas(listener: () => void): void {
  listeners.push(listener);
}
