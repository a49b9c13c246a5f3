import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { hermesPaths } from '../../../src/config/paths.js';
import { DockerProvider, RECREATED_NOTE, type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { tempDir } from '../../helpers/tool-context.js';

/**
 * A stand-in `docker` client that runs `exec` on this host, for the environment's own logic
 * (wrapper, recreation, labels reuse) where no engine is installed; the real engine is
 * exercised by docker-real.test.ts when one answers.
 */
function fakeDocker(): { binary: string; state: string } {
  const state = tempDir('hermes-fake-docker-');
  const binary = join(state, 'docker');
  writeFileSync(
    binary,
    `#!/bin/bash
s=${state}
echo "$*" >> $s/calls
case "$1" in
  ps) [ -e $s/current ] && echo "$(cat $s/current) running"; exit 0;;
  run) id=c$RANDOM; echo $id > $s/current; echo $id; exit 0;;
  start) exit 0;;
  rm) [ "$3" = "-v" ] && [ "$4" = "$(cat $s/current 2>/dev/null)" ] && rm -f $s/current; exit 0;;
  volume) exit 0;;
  inspect) [ -e $s/current ] && [ "$4" = "$(cat $s/current)" ] && { echo true; exit 0; }; echo "Error: No such container: $4" >&2; exit 1;;
  exec) [ "$3" = "$(cat $s/current 2>/dev/null)" ] || { echo "Error response from daemon: No such container: $3" >&2; exit 1; }; shift 3; exec "$@";;
esac
exit 2
`,
  );
  chmodSync(binary, 0o755);
  return { binary, state };
}

async function environment(binary: string, persistent: boolean): Promise<DockerEnvironment> {
  const { config } = validateConfig({ terminal: { container_persistent: persistent, docker: { binary } } }, 'test');
  const provider = new DockerProvider({ config, paths: hermesPaths(tempDir('hermes-docker-home-')) });
  return (await provider.createEnvironment({ cwd: '/', timeout: 30, taskId: 'fake', logger: silentLogger() })) as DockerEnvironment;
}

describe('DockerEnvironment against a stand-in client', () => {
  it('execs commands through the remote wrapper with stdin and exit codes', async () => {
    const { binary } = fakeDocker();
    const env = await environment(binary, false);
    const result = await env.execute('cat; exit 4', { stdin: 'piped', cwd: '/tmp' });
    expect(result).toMatchObject({ output: 'piped', exit_code: 4 });
  });

  it('recreates a vanished container once and says so in the output', async () => {
    const { binary, state } = fakeDocker();
    const env = await environment(binary, false);
    const first = env.container;
    writeFileSync(join(state, 'current'), 'someone-else\n');
    const result = await env.execute('echo again', { cwd: '/tmp' });
    expect(result.output).toBe(`${RECREATED_NOTE}\nagain\n`);
    expect(env.container).not.toBe(first);
  });

  it('reuses the labelled container when persistent and keeps it on cleanup', async () => {
    const { binary, state } = fakeDocker();
    const a = await environment(binary, true);
    const b = await environment(binary, true);
    expect(b.container).toBe(a.container);
    await b.cleanup();
    expect((await b.execute('echo still', { cwd: '/tmp' })).output).toBe('still\n');
    expect(state).toBeTruthy();
  });
});
