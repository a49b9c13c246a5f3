import { describe, expect, it } from 'vitest';
import { bwrapNamespaceTrial } from '../../src/environments/sandbox/bwrap-probe.js';
import { sandboxWorks } from '../../src/environments/audience.js';
import { SandboxProvider } from '../../src/environments/sandbox/sandbox-provider.js';
import { findExecutable } from '../../src/environments/which.js';
import { defaultConfig, hermesPaths } from '../../src/config/index.js';

describe('the one bubblewrap probe', () => {
  it('a bwrap that cannot run is a failed trial with a reason, not a throw', () => {
    expect(bwrapNamespaceTrial('/nonexistent/bwrap')).toEqual({ ok: false, reason: 'bwrap failed' });
  });

  it('doctor and the platform-backend choice agree on whether bwrap makes its namespaces here', () => {
    const bwrap = findExecutable('bwrap');
    const trial = bwrap ? bwrapNamespaceTrial(bwrap) : { ok: false as const, reason: 'no bwrap' };
    expect(sandboxWorks()).toBe(trial.ok);
    if (!bwrap) return;
    const provider = new SandboxProvider({ config: defaultConfig(), paths: hermesPaths('/tmp/hermes-bwrap-probe-test') });
    const check = provider.doctorChecks().find((c) => c.name === 'sandbox: namespaces');
    expect(check?.ok).toBe(trial.ok);
    if (!trial.ok) expect(check?.detail).toBe(trial.reason);
  });
});
