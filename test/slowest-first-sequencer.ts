import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { z } from 'zod';

/**
 * Starts the slowest test files first, by their durations in the last JSON report
 * (HERMES_TEST_DURATIONS, else test-results/vitest.json): on two workers a 3-minute file
 * started last is a 3-minute tail. Files the report does not know (new ones, or no report at
 * all) go first, largest first, as vitest's own sequencer does with its empty cache.
 */
const reportSchema = z.object({
  testResults: z.array(z.object({ name: z.string(), startTime: z.number(), endTime: z.number() })),
});

function lastDurations(root: string): Map<string, number> {
  const path = resolve(root, process.env.HERMES_TEST_DURATIONS ?? 'test-results/vitest.json');
  const durations = new Map<string, number>();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return durations; // no report yet: sizes decide
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return durations; // a run cut short leaves half a file
  }
  const parsed = reportSchema.safeParse(json);
  if (!parsed.success) return durations;
  for (const file of parsed.data.testResults) durations.set(keyOf(file.name), file.endTime - file.startTime);
  return durations;
}

/** A file's path from its `test/` folder on: a report made in another clone (CI's cache) still matches. */
function keyOf(path: string): string {
  const at = path.indexOf('/test/');
  return at === -1 ? path : path.slice(at + 1);
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export default class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = lastDurations(this.ctx.config.root);
    const rank = (spec: TestSpecification) => {
      const known = durations.get(keyOf(spec.moduleId));
      return known === undefined ? { unknown: 1, weight: sizeOf(spec.moduleId) } : { unknown: 0, weight: known };
    };
    const ranked = files.map((spec) => ({ spec, ...rank(spec) }));
    ranked.sort((a, b) => b.unknown - a.unknown || b.weight - a.weight);
    return ranked.map(({ spec }) => spec);
  }
}
