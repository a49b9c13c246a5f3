import { z } from 'zod';
import { HIGHEST_PORT, lowestPort, portRangeText, type PortRange } from './port.js';

/* The value types config.yaml's keys are made of, each with its error message: the core schema and each platform's (adapters/<name>/config.ts) share them. */

export const positive = (what = 'a positive number') =>
  z.number({ error: `expected ${what}` }).positive({ error: `expected ${what}` });
export const positiveInt = (what = 'a positive integer') =>
  z.number({ error: `expected ${what}` }).int({ error: `expected ${what}` }).positive({ error: `expected ${what}` });
export const nonNegativeInt = () =>
  z.number({ error: 'expected a whole number ≥ 0' }).int({ error: 'expected a whole number ≥ 0' }).min(0, { error: 'expected a whole number ≥ 0' });
/** setTimeout's limit is 2^31 - 1 ms; a longer delay fires after 1 ms. */
export const MAX_SECONDS = 2_147_483;
/** A duration in seconds: positive, and short enough for a Node timer. Use it for every duration key. */
export const seconds = () =>
  positive().max(MAX_SECONDS, { error: `expected at most ${MAX_SECONDS} seconds` });
/** A TCP port to connect to or listen on; `anyFree` also allows 0 (the system picks a free port). */
export const port = (range: PortRange = {}) => {
  const what = portRangeText(range);
  return z
    .number({ error: `expected ${what}` })
    .int({ error: `expected ${what}` })
    .min(lowestPort(range), { error: `expected ${what}` })
    .max(HIGHEST_PORT, { error: `expected ${what}` });
};
/** A share of something: more than 0, less than 1. */
export const fraction = () =>
  z.number({ error: 'expected a number between 0 and 1' }).gt(0, { error: 'expected a number between 0 and 1' }).lt(1, { error: 'expected a number between 0 and 1' });
/** Dollars per million tokens. */
export const price = () => z.number({ error: 'expected dollars per million tokens' }).min(0, { error: 'expected dollars per million tokens (0 or more)' });
export const bool = () => z.boolean({ error: 'expected true or false' });
/** A size in bytes, written `512m`, `2g`, `1GiB` or as a number of bytes. */
export const byteSize = () =>
  z.union([z.string(), z.number()], { error: 'expected a size such as 512m or 2g' })
    .refine((value) => /^\s*\d+(\.\d+)?\s*[kmgt]?(i?b)?\s*$/i.test(String(value)) && Number.parseFloat(String(value)) > 0, { error: 'expected a size such as 512m or 2g' });
export const text = () => z.string({ error: 'expected a string' });
export const names = () => z.array(text(), { error: 'expected a list of strings' });
export const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `expected one of ${values.join(', ')}` });
/** Ids are strings, but YAML writes `123` as a number: accept both. */
export const ids = () => z.array(z.union([text(), z.number()]).transform(String), { error: 'expected a list of ids' });

export const section = <S extends z.ZodRawShape>(shape: S) => z.strictObject(shape).prefault({} as never);

/** A regular expression as config.yaml writes it (`wake_words`): refused at load when it does not compile. */
export const pattern = () =>
  text().refine(
    (source) => {
      try {
        new RegExp(source, 'i');
        return true;
      } catch {
        return false;
      }
    },
    { error: 'expected a regular expression that compiles (JavaScript syntax)' },
  );
