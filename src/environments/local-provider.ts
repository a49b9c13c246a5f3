import type { HermesConfig } from '../config/schema.js';
import type { DoctorCheck, ProbeResult, TerminalEnvironmentProvider } from './provider.js';
import type { CreateEnvironmentOptions, Environment } from './types.js';
import { LocalEnvironment } from './local.js';
import { limitsFromConfig } from './limits.js';
import { limitsCheck } from './limits-doctor.js';
import { findExecutable } from './which.js';

/** The `local` backend: commands run on this host as the gateway's user. */
export class LocalProvider implements TerminalEnvironmentProvider {
  readonly name = 'local';
  readonly displayName = 'Local';
  readonly description = 'Run commands directly on this host, as the user running the gateway.';
  // Flags equal to SafeProvider's defaults are not restated: runs on this host, not a container, no cache path, no variables stripped.
  readonly sessionIsolatedWhenNonpersistent = false;
  readonly envDescription = 'Commands run directly on the host machine, with the same files and network as the user running the gateway.';

  constructor(private readonly deps: { config: HermesConfig }) {}

  isAvailable(): boolean {
    return true;
  }

  probe(): ProbeResult {
    return { ok: true, detail: `commands run on this host (${process.platform})` };
  }

  doctorChecks(): DoctorCheck[] {
    return [limitsCheck('local', this.deps.config)];
  }

  setupInstructions(): string {
    return 'Commands run on this host with your permissions; risky ones ask for approval first (approvals.mode).';
  }

  createEnvironment(options: CreateEnvironmentOptions): Environment {
    const childEnv = typeof options.childEnv === 'function' ? (options.childEnv as () => Record<string, string>) : () => ({});
    return new LocalEnvironment({
      cwd: options.cwd,
      timeout: options.timeout,
      childEnv,
      maxOutputBytes: this.deps.config.terminal.max_output_bytes,
      graceMs: this.deps.config.code_execution.kill_grace * 1000,
      // Linux only: util-linux prlimit; elsewhere commands run without kernel limits (doctor says so).
      limits: limitsFromConfig(this.deps.config),
      prlimit: process.platform === 'linux' ? findExecutable('prlimit') : undefined,
      scriptTimeout: this.deps.config.code_execution.timeout,
    });
  }
}
