import { afterAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { hermesPaths } from '../../../src/config/paths.js';
import { DockerProvider, runArgs, type DockerEnvironment } from '../../../src/environments/docker/index.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { tempDir } from '../../helpers/tool-context.js';
import { TEST_IMAGE, engineSkipReason } from '../../helpers/container-engine.js';

function provider(terminal: Record<string, unknown> = {}, home = '/srv/hermes-home') {
  const { config } = validateConfig({ terminal: { container_persistent: false, ...terminal } }, 'test');
  return new DockerProvider({ config, paths: hermesPaths(home) });
}

/** The values that follow each occurrence of `flag`. */
function valuesOf(args: string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag ? [args[i + 1]] : []));
}

describe('docker limits on the command line', () => {
  it('runs the container with the pids, memory and CPU cgroup limits and --ulimit for file size, open files, CPU time and core dumps', () => {
    const args = runArgs(provider({ docker: { memory: '1g', pids_limit: 100 }, limits: { file_size: '8m', open_files: 64 }, max_timeout: 600 }).spec('s'));
    expect(valuesOf(args, '--pids-limit')).toEqual(['100']);
    expect(valuesOf(args, '--memory')).toEqual(['1g']);
    expect(valuesOf(args, '--ulimit')).toEqual([`fsize=${8 * 1024 ** 2}:${8 * 1024 ** 2}`, 'nofile=64:64', 'nproc=100:100', 'core=0:0', 'cpu=600:605']);
  });

  it('takes the CPU time from terminal.limits.cpu_time when it is set, else the longest timeout a command or script may have', () => {
    expect(valuesOf(runArgs(provider({ limits: { cpu_time: 30 } }).spec('s')), '--ulimit')).toContain('cpu=30:35');
    const defaults = validateConfig({}, 'test').config;
    const longest = Math.max(defaults.terminal.max_timeout, defaults.code_execution.timeout);
    expect(valuesOf(runArgs(provider().spec('s')), '--ulimit')).toContain(`cpu=${longest}:${longest + 5}`);
  });
});

const missing = await engineSkipReason();
if (missing) console.warn(`docker limit tests on a real engine cannot run here: ${missing}`);

describe.runIf(!missing)('docker limits on a real engine', () => {
  let env: DockerEnvironment | undefined;
  afterAll(async () => {
    await env?.cleanup();
  });

  it('stops a write past terminal.limits.file_size in the container', async () => {
    const docker = provider({ docker: { image: TEST_IMAGE }, limits: { file_size: '1m' } }, tempDir('hermes-docker-limits-'));
    env = (await docker.createEnvironment({ cwd: '/', timeout: 60, taskId: 'limits', logger: silentLogger() })) as DockerEnvironment;
    const run = await env.execute('head -c 3000000 /dev/zero > big.bin; echo "rc=$?"; wc -c < big.bin');
    expect(run.output).toMatch(/rc=(153|1)\b/);
    expect(run.output.trim().split('\n').pop()).toBe(String(1024 * 1024));
  }, 300_000);
});
