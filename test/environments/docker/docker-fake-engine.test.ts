import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { hermesPaths } from '../../../src/config/paths.js';
import { DockerProvider, RECREATED_NOTE, type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { tempDir } from '../../helpers/tool-context.js';
import { fakeClient } from './fake-client.js';

async function environment(binary: string, persistent: boolean): Promise<DockerEnvironment> {
  const { config } = validateConfig({ terminal: { container_persistent: persistent, docker: { binary } } }, 'test');
  const provider = new DockerProvider({ config, paths: hermesPaths(tempDir('hermes-docker-home-')) });
  return (await provider.createEnvironment({ cwd: '/', timeout: 30, taskId: 'fake', logger: silentLogger() })) as DockerEnvironment;
}

describe('DockerEnvironment against a stand-in client', () => {
  it('execs commands through the remote wrapper with stdin and exit codes', async () => {
    const { binary } = fakeClient('docker');
    const env = await environment(binary, false);
    const result = await env.execute('cat; exit 4', { stdin: 'piped', cwd: '/tmp' });
    expect(result).toMatchObject({ output: 'piped', exit_code: 4 });
  });

  it('recreates a vanished container once and says so in the output', async () => {
    const { binary, state } = fakeClient('docker');
    const env = await environment(binary, false);
    const first = env.container;
    writeFileSync(join(state, 'current'), 'someone-else\n');
    const result = await env.execute('echo again', { cwd: '/tmp' });
    expect(result.output).toBe(`${RECREATED_NOTE}\nagain\n`);
    expect(env.container).not.toBe(first);
  });

  it('reuses the labelled container when persistent and keeps it on cleanup', async () => {
    const { binary } = fakeClient('docker');
    const a = await environment(binary, true);
    const b = await environment(binary, true);
    expect(b.container).toBe(a.container);
    await b.cleanup();
    expect((await b.execute('echo still', { cwd: '/tmp' })).output).toBe('still\n');
  });
});
