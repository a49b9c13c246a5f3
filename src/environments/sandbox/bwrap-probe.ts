import { spawnSync } from 'node:child_process';

/** Whether bwrap can make its namespaces here; when not, the first line of what it said. */
export type NamespaceTrial = { ok: true } | { ok: false; reason: string };

/**
 * The one bubblewrap probe: a trial run of `true` in fresh PID and network namespaces (what
 * the sandbox needs at the least). Both doctor and the choice of the platform backend ask it.
 */
export function bwrapNamespaceTrial(bwrap: string): NamespaceTrial {
  const trial = spawnSync(bwrap, ['--ro-bind', '/', '/', '--unshare-pid', '--unshare-net', '--die-with-parent', '--', 'true'], {
    encoding: 'utf8',
    timeout: 5000,
  });
  if (trial.status === 0) return { ok: true };
  return { ok: false, reason: (trial.stderr || 'bwrap failed').trim().split('\n')[0] };
}
