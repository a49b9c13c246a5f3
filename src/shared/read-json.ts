import type { z } from 'zod';

/** `text` read as JSON of `schema`'s shape, or undefined when it is not JSON or not that shape (what came from outside). */
export function readJson<T>(schema: z.ZodType<T>, text: string): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
