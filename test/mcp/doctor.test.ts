import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runCli } from '../environments/cli-harness.js';
import { everythingStdio } from './servers.js';
import { tempFoldersPerTest } from '../helpers/temp-folders.js';

/* `hermes doctor` starts each configured MCP server once and says whether it came up. */
const tempFolder = tempFoldersPerTest();

describe('hermes doctor: MCP servers', () => {
  it('reports a server that starts with its tools, fails one that cannot start with what to do, and notes a disabled one', async () => {
    const home = tempFolder('hermes-mcp-doctor-');
    writeFileSync(
      join(home, 'config.yaml'),
      stringify({
        model: { base_url: 'http://127.0.0.1:9/v1', name: '' },
        mcp_servers: {
          everything: everythingStdio({ scripts: true }),
          broken: { command: '/nonexistent/mcp-server-binary', args: ['--flag'] },
          resting: { ...everythingStdio(), enabled: false },
        },
      }),
    );
    const run = await runCli(home, 'doctor');
    expect(run.stdout).toMatch(/^\[ ok \] MCP everything: ready \(stdio, \d+ tools, scripts\)$/m);
    expect(run.stdout).toMatch(/^\[FAIL\] MCP broken: did not start: .*ENOENT.*\n {7}→ check by running \/nonexistent\/mcp-server-binary --flag; or set mcp_servers\.broken\.enabled: false$/m);
    expect(run.stdout).toMatch(/^\[info\] MCP resting: disabled \(enabled: false\)$/m);
    expect(run.exitCode).toBe(1);
  }, 60_000);
});
