import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
import { hermesPaths } from '../../../src/config/paths.js';
import { DockerProvider, execArgs, findArgs, removeArgs, runArgs } from '../../../src/environments/docker/index.js';

function provider(overrides: Record<string, unknown> = {}) {
  const { config } = validateConfig({ terminal: { docker: overrides } }, 'test');
  return new DockerProvider({ config, paths: hermesPaths('/srv/hermes-home') });
}

/** The values that follow each occurrence of `flag`. */
function valuesOf(args: string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag ? [args[i + 1]] : []));
}

describe('docker command lines', () => {
  it('runs one long-lived container with --init, labels, dropped capabilities and limits', () => {
    const args = runArgs(provider({ memory: '1g', cpus: 1.5, pids_limit: 100 }).spec('slack:T1:C1:1700.1'));
    expect(args.slice(0, 3)).toEqual(['run', '-d', '--init']);
    expect(valuesOf(args, '--cap-drop')).toEqual(['ALL']);
    expect(valuesOf(args, '--cap-add')).toEqual(['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID', 'KILL']);
    expect(valuesOf(args, '--security-opt')).toEqual(['no-new-privileges']);
    expect(valuesOf(args, '--pids-limit')).toEqual(['100']);
    expect(valuesOf(args, '--memory')).toEqual(['1g']);
    expect(valuesOf(args, '--cpus')).toEqual(['1.5']);
    expect(valuesOf(args, '--label')).toEqual([expect.stringMatching(/^hermes\.gateway=[0-9a-f]{12}$/), 'hermes.session=slack_T1_C1_1700.1']);
    expect(valuesOf(args, '--mount')).toEqual([expect.stringMatching(/^type=volume,source=hermes-ws-[0-9a-f]{12},target=\/workspace$/)]);
    expect(valuesOf(args, '--workdir')).toEqual(['/workspace']);
    expect(args.slice(-3)).toEqual(['python:3.12-slim', 'sleep', 'infinity']);
  });

  it('turns the network off unless terminal.docker.network is true', () => {
    expect(valuesOf(runArgs(provider().spec('s')), '--network')).toEqual(['none']);
    expect(runArgs(provider({ network: true }).spec('s'))).not.toContain('--network');
  });

  it('names containers per gateway home and session, the same across restarts', () => {
    const a = provider().spec('s1');
    expect(provider().spec('s1')).toEqual(a);
    expect(provider().spec('s2').name).not.toBe(a.name);
    const { config } = validateConfig({}, 'test');
    const otherHome = new DockerProvider({ config, paths: hermesPaths('/other/home') }).spec('s1');
    expect(otherHome.gatewayId).not.toBe(a.gatewayId);
  });

  it('finds a reusable container by both labels and execs with stdin and no TTY', () => {
    expect(findArgs('abc', 's1')).toEqual(['ps', '-a', '--filter', 'label=hermes.gateway=abc', '--filter', 'label=hermes.session=s1', '--format', '{{.ID}} {{.State}}']);
    expect(execArgs('c1', ['bash', '-c', 'x'])).toEqual(['exec', '-i', 'c1', 'bash', '-c', 'x']);
    expect(removeArgs('c1')).toEqual(['rm', '-f', '-v', 'c1']);
  });

  it('is available when the client binary exists, without asking the engine', () => {
    const made = provider({ binary: 'docker-binary-that-does-not-exist' });
    expect(made.isAvailable()).toBe(false);
    expect(made.probe().ok).toBe(false);
  });
});
