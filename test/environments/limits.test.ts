import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/index.js';
import { cpuSeconds, limitsFromConfig, parseByteSize, prlimitArgs } from '../../src/environments/limits.js';
import { limitsCheck } from '../../src/environments/limits-doctor.js';

describe('terminal.limits', () => {
  it('reads sizes written 512m, 2g, 1GiB or in bytes, and nothing else', () => {
    expect(parseByteSize('512m')).toBe(512 * 1024 ** 2);
    expect(parseByteSize('2g')).toBe(2 * 1024 ** 3);
    expect(parseByteSize('1GiB')).toBe(1024 ** 3);
    expect(parseByteSize(4096)).toBe(4096);
    for (const bad of ['', 'lots', '-1g', '0', '2 gigs']) expect(parseByteSize(bad), bad).toBeUndefined();
  });

  it('refuses a size that is not one, naming the key', () => {
    expect(() => validateConfig({ terminal: { limits: { memory: 'lots' } } }, 'config.yaml')).toThrow(/terminal\.limits\.memory/);
  });

  it('sets every limit soft and hard alike, CPU from the timeout unless cpu_time is set, and processes only where asked (sandbox)', () => {
    const limits = limitsFromConfig(validateConfig({ terminal: { limits: { processes: 10, memory: '1g', file_size: '1m', open_files: 50 } } }, 'test').config);
    expect(prlimitArgs(limits, { cpuSeconds: cpuSeconds(limits, 30), processes: true })).toEqual([
      `--data=${1024 ** 3}:${1024 ** 3}`, `--fsize=${1024 ** 2}:${1024 ** 2}`, '--nofile=50:50', '--core=0:0', '--nproc=10:10', '--cpu=30:35',
    ]);
    expect(prlimitArgs(limits, { processes: false }).some((arg) => arg.startsWith('--nproc'))).toBe(false);
    expect(cpuSeconds({ ...limits, cpuTime: 7 }, 30)).toBe(7);
  });

  it('doctor says which mechanism holds the limits on each backend, and that local does not count processes', () => {
    const { config } = validateConfig({}, 'test');
    expect(limitsCheck('local', config).detail).toMatch(/prlimit.*processes not limited/);
    expect(limitsCheck('sandbox', config).detail).toMatch(/prlimit.*256 processes/);
    expect(limitsCheck('docker', config).detail).toMatch(/cgroup.*--pids-limit 512.*--ulimit/);
    expect(limitsCheck('ssh', config).detail).toMatch(/far host/);
  });
});
