import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { hermesPaths } from '../../../src/config/paths.js';
import { DockerProvider, RECREATED_NOTE, type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { tempDir } from '../../helpers/tool-context.js';

/** Whether a container engine answers here; CI has none, so these tests say so and do not run. */
function engineMissing(): string | undefined {
  for (const binary of ['docker', 'podman']) {
    const version = spawnSync(binary, ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 10_000 });
    if (version.status === 0 && version.stdout.trim()) return undefined;
  }
  return 'no container engine answers (docker/podman version failed)';
}

const missing = engineMissing();
if (missing) console.warn(`docker real-run tests cannot run here: ${missing}; the command lines are checked in docker-args.test.ts`);

describe.runIf(!missing)('DockerEnvironment with a real engine', () => {
  let env: DockerEnvironment;
  let provider: DockerProvider;

  beforeAll(async () => {
    const { config } = validateConfig({ terminal: { container_persistent: false } }, 'test');
    provider = new DockerProvider({ config, paths: hermesPaths(tempDir('hermes-docker-home-')) });
    env = (await provider.createEnvironment({ cwd: '/', timeout: 60, taskId: 'docker-test', logger: silentLogger() })) as DockerEnvironment;
  }, 300_000);

  afterAll(async () => {
    await env?.cleanup();
  });

  it('runs commands in /workspace without network', async () => {
    const result = await env.execute('pwd; cat /sys/class/net/*/operstate 2>/dev/null | wc -l');
    expect(result.output.split('\n')[0]).toBe('/workspace');
    expect(result.exit_code).toBe(0);
  });

  it('kills the command group on timeout', async () => {
    const result = await env.execute('sleep 300', { timeout: 1 });
    expect(result.timed_out).toBe(true);
  });

  it('recreates a container that disappeared, once, and says so', async () => {
    spawnSync(provider.binary()!, ['rm', '-f', env.container]);
    const result = await env.execute('echo back');
    expect(result.output).toBe(`${RECREATED_NOTE}\nback\n`);
  });
});
