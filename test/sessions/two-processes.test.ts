import { afterEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SessionStore } from '../../src/sessions/index.js';
import { packageRoot, silentLogger } from '../../src/shared/index.js';

/* Two processes (this one and a child running the built store) writing one state.db at once. */
const built = join(packageRoot(), 'dist/src/sessions/index.js');
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('two processes on one state.db', () => {
  it('write concurrently without losing a message (WAL and busy timeout)', async () => {
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` before these tests`);
    dir = mkdtempSync(join(tmpdir(), 'hermes-2proc-'));
    const file = join(dir, 'state.db');
    const store = SessionStore.open(file, { logger: silentLogger() });
    const session = store.currentOrCreate('shared:key');
    const script = `
      import { SessionStore } from ${JSON.stringify(pathToFileURL(built).href)};
      import { pino } from 'pino';
      const store = SessionStore.open(${JSON.stringify(file)}, { logger: pino({ level: 'silent' }) });
      const session = store.currentOrCreate('shared:key');
      for (let i = 0; i < 300; i++) store.append(session.id, { role: 'user', content: 'child ' + i });
      store.close();
      console.log(session.id);
    `;
    const child = execa(process.execPath, ['--input-type=module', '-e', script], { cwd: packageRoot() });
    let done = false;
    void child.finally(() => (done = true)).catch(() => undefined);
    // Keep writing for as long as the child runs, so the two overlap.
    let written = 0;
    while (!done) {
      store.append(session.id, { role: 'user', content: `parent ${written++}` });
      await new Promise((resolve) => setImmediate(resolve));
    }
    const { stdout } = await child;
    expect(stdout.trim()).toBe(session.id);
    const contents = store.messages(session.id).map((m) => String(m.content));
    expect(contents).toHaveLength(written + 300);
    expect(contents.filter((c) => c.startsWith('child ')).map((c) => Number(c.slice(6)))).toEqual([...Array(300).keys()]);
    expect(contents.filter((c) => c.startsWith('parent ')).map((c) => Number(c.slice(7)))).toEqual([...Array(written).keys()]);
    const firstChild = contents.findIndex((c) => c.startsWith('child '));
    const lastChild = contents.findLastIndex((c) => c.startsWith('child '));
    expect(contents.slice(0, firstChild).some((c) => c.startsWith('parent '))).toBe(true);
    expect(contents.slice(lastChild).some((c) => c.startsWith('parent '))).toBe(true);
    store.close();
  });
});
