import type { HermesConfig } from '../../config/schema.js';
import type { Logger } from '../../shared/logger.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { CallGate } from '../call-gate.js';
import type { CellRequest } from '../kernel-execution.js';
import type { ExecuteCodeResult } from '../types.js';
import { executeRemotePerCall } from './remote-per-call.js';
import { RemoteKernels } from './remote-kernels.js';

export interface RemoteRunnerDeps {
  config: HermesConfig;
  registry: ToolRegistry;
  logger: Logger;
  strip: () => Iterable<string>;
  spillDir: string;
}

/**
 * execute_code for environments without `hostCommand` (SSH, Docker, plugins): session
 * kernels on the backend when enabled, else (or when one cannot start) a one-shot script,
 * with the same note as locally.
 */
export class RemoteCodeRunner {
  readonly kernels?: RemoteKernels;

  constructor(private readonly deps: RemoteRunnerDeps) {
    if (deps.config.code_execution.session_kernels) this.kernels = new RemoteKernels(deps);
  }

  async execute(request: CellRequest): Promise<ExecuteCodeResult> {
    let note: string | undefined;
    if (this.kernels) {
      const cell = await this.kernels.run(request);
      if (!('unavailable' in cell)) return cell;
      note = `session kernel unavailable: ${cell.unavailable}; this call ran as a one-shot script and keeps no state`;
      this.deps.logger.warn({ session: request.owner }, note);
    }
    const result = await executeRemotePerCall({
      code: request.code,
      stub: request.stub,
      allowed: request.allowed,
      context: request.context,
      environment: request.context.environment,
      gate: new CallGate(this.deps.registry),
      config: this.deps.config,
      passthrough: request.passthrough,
      strip: this.deps.strip(),
      spillDir: this.deps.spillDir,
      logger: this.deps.logger.child({ session: request.owner }),
      startedMs: request.startedMs,
    });
    return note ? { ...result, kernel: { mode: 'per-call', note } } : result;
  }

  async close(): Promise<void> {
    await this.kernels?.close();
  }
}
