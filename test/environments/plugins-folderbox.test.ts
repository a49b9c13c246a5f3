import { describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { createEnvironmentManager } from '../../src/environments/index.js';
import { readFileTool, writeFileTool } from '../../src/tools/builtin/index.js';
import { silentLogger } from '../../src/shared/index.js';
import type { ToolContext } from '../../src/tools/index.js';

const example = join(import.meta.dirname, '../../examples/plugins/folderbox');

describe('the folderbox example plugin', () => {
  it('gives the file tools the folder\'s files as they are: the [folderbox] output marker never lands in a file', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hermes-folderbox-'));
    cpSync(example, join(home, 'plugins', 'folderbox'), { recursive: true });
    writeFileSync(join(home, 'config.yaml'), 'terminal:\n  backend: folderbox\nplugins:\n  enabled: [folderbox]\n');
    const loaded = loadConfig({ home, loadEnv: false });
    const { manager } = await createEnvironmentManager({ config: loaded.config, paths: loaded.paths });
    try {
      const environment = await manager.environmentFor('web:1');
      const ctx: ToolContext = {
        sessionId: 'web:1', signal: new AbortController().signal, environment, logger: silentLogger(),
        config: loaded.config, paths: loaded.paths,
      };
      const folder = join(home, 'folderbox');
      expect(await writeFileTool().handler({ path: 'plan.txt', content: 'first line\nsecond line\n' }, ctx)).not.toHaveProperty('error');
      expect(readFileSync(join(folder, 'plan.txt'), 'utf8')).toBe('first line\nsecond line\n');
      writeFileSync(join(folder, 'given.txt'), 'from the host\n');
      const read = (await readFileTool().handler({ path: 'given.txt' }, ctx)) as { content?: string; error?: string };
      expect(read.error).toBeUndefined();
      expect(read.content).toContain('from the host');
      expect(read.content).not.toContain('[folderbox]');
    } finally {
      await manager.closeAll();
    }
  });
});
