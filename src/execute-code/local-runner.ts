import type { HermesConfig } from '../config/schema.js';
import type { HostProcessEnvironment, SpillFolder } from '../environments/types.js';
import type { Logger } from '../shared/logger.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { CallPath, CellRequest } from './call-path.js';
import { SessionKernels } from './session-kernels.js';
import { executePerCall, oneShotInput } from './per-call-execution.js';
import type { ExecuteCodeResult } from './types.js';

export interface LocalRunnerDeps {
  config: HermesConfig;
  registry: ToolRegistry;
  logger: Logger;
  /** Where a cut stdout goes for an environment (where its own read_file can open it). */
  spillFor(environment: HostProcessEnvironment): SpillFolder;
}

/**
 * execute_code on environments whose processes start on this host (local, sandbox): session
 * kernels (session-kernels.ts) when enabled, and one-shot scripts (per-call-execution.ts),
 * both through `hostCommand` with a local RPC socket.
 */
export class LocalCodeRunner implements CallPath<HostProcessEnvironment> {
  readonly kernels?: SessionKernels;

  constructor(private readonly deps: LocalRunnerDeps) {
    if (deps.config.code_execution.session_kernels) this.kernels = new SessionKernels(deps);
  }

  oneShot(request: CellRequest, environment: HostProcessEnvironment): Promise<ExecuteCodeResult> {
    return executePerCall({ ...oneShotInput(request, this.deps), environment, spill: this.deps.spillFor(environment) });
  }

  async close(): Promise<void> {
    await this.kernels?.close();
  }
}
