import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../src/shared/package-root.js';

const builtLogger = pathToFileURL(join(packageRoot(), 'dist/src/shared/logger.js')).href;

/**
 * Runs a Node process that logs `lines` lines through createLogger once its file is open and
 * leaves by process.exit (no event loop turn left to write in).
 */
function logThenExit(sync: boolean, lines: number): string[] {
  const file = join(mkdtempSync(join(tmpdir(), 'hermes-logger-')), 'logs/agent.log');
  const script = `import { once } from 'node:events';
import { pino } from 'pino';
import { createLogger } from ${JSON.stringify(builtLogger)};
const logger = createLogger({ file: ${JSON.stringify(file)}, level: 'info', sync: ${sync}, env: {} });
const stream = logger[pino.symbols.streamSym];
if (stream.fd < 0) await once(stream, 'ready');
for (let i = 0; i < ${lines}; i++) logger.info({ i }, 'line');
process.exit(0);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: packageRoot() });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

describe('createLogger', () => {
  it('the gateway\'s buffered logger has every line in the file after an abrupt process.exit (flushed at exit)', () => {
    const lines = logThenExit(false, 2000);
    expect(lines).toHaveLength(2000);
    expect((JSON.parse(lines[1999]) as { i: number }).i).toBe(1999);
  });

  it('a sync logger (hermes exec) has every line in the file after an abrupt process.exit, with nothing left to flush', () => {
    const lines = logThenExit(true, 2000);
    expect(lines).toHaveLength(2000);
    expect((JSON.parse(lines[0]) as { msg: string; i: number })).toMatchObject({ msg: 'line', i: 0 });
  });
});
