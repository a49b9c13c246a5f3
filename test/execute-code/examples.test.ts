import { describe, expect, it } from 'vitest';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { perCallExecutor } from './helpers.js';

const examples = join(import.meta.dirname, '../../examples');

/** Runs an example script against a fresh copy of examples/sample-project. */
async function runExample(name: string) {
  const { executor, cwd } = perCallExecutor();
  cpSync(join(examples, 'sample-project'), cwd, { recursive: true });
  const result = await executor.execute({ sessionId: 's', code: readFileSync(join(examples, name), 'utf8') });
  return { result, cwd };
}

describe('the examples', () => {
  it('data-pipeline.py finds the database configs and previews them', async () => {
    const { result } = await runExample('data-pipeline.py');
    expect(result.status).toBe('success');
    const configs = JSON.parse(result.output) as { file: string; preview: string }[];
    expect(configs.map((c) => c.file)).toEqual(['config/database.yaml', 'config/replica.yaml']);
    expect(configs[0].preview).toContain('host: db.internal');
    expect(result.tool_calls_made).toBe(3);
  });

  it('bulk-refactor.py patches every caller of the deprecated API', async () => {
    const { result, cwd } = await runExample('bulk-refactor.py');
    expect(result.output).toBe('Fixed 2 files out of 2 with matches\n');
    for (const file of ['orders.py', 'reports.py']) {
      const text = readFileSync(join(cwd, 'src/app', file), 'utf8');
      expect(text).not.toMatch(/old_api_call\(/);
      expect(text).toContain('new_api_call(');
    }
    expect(readFileSync(join(cwd, 'src/app/api.py'), 'utf8')).toContain('def old_api_call(');
  });

  it('build-and-test.py runs the suite through terminal and reports a summary', async () => {
    const { result } = await runExample('build-and-test.py');
    expect(JSON.parse(result.output)).toEqual({ exit_code: 0, failed: 0, passed: 3, ran: 3 });
    expect(result.tool_calls_made).toBe(1);
  });
});
