import { z } from 'zod';

/*
 * Imported first by exec-run.ts, before any module that builds a schema: zod decides whether a
 * schema compiles its fast path (new Function) when the schema is made, not when it parses, so
 * the setting must come before the config schema's module runs. A one-shot command parses each
 * schema once or twice, and compiling the fast paths cost more than it saved (about 25 ms).
 */
z.config({ jitless: true });
