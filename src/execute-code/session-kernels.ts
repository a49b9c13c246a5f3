import { dirname } from 'node:path';
import type { HermesConfig } from '../config/schema.js';
import type { HostProcessEnvironment, SpillFolder } from '../environments/types.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { ToolRegistry } from '../tools/registry.js';
import { CallGate } from './call-gate.js';
import type { CellRequest, KernelAnswer } from './call-path.js';
import { KernelPool, KernelProcess, KernelStartError, kernelArgv, kernelRunnerPath } from './kernel/index.js';
import { runGatedCell, runInKernel, sessionKernelPool } from './kernel-cells.js';
import { stageLaunch, type Staged } from './launch.js';
import type { ExecuteCodeResult } from './types.js';

/** A kernel's private staging folder, RPC server and gate; they live and die with it. */
interface KernelResources {
  staged: Staged;
  gate: CallGate;
  /** The folder the kernel's process is in: where it started, or where it last followed a terminal `cd`. */
  cwd: string;
}

/**
 * Session kernels on this host (local, sandbox): one resident Python process per owner
 * (session or subagent), started through `hostCommand` and reached through the same stub, RPC server and call gate as one-shot scripts.
 * The gate is opened per cell, so the budget resets every cell and a call arriving between
 * cells is refused with `No active execute_code cell`.
 */
export class SessionKernels {
  readonly pool: KernelPool;
  private readonly resources = new Map<KernelProcess, KernelResources>();

  constructor(
    private readonly deps: {
      config: HermesConfig;
      registry: ToolRegistry;
      logger: Logger;
      spillFor: (environment: HostProcessEnvironment) => SpillFolder;
    },
  ) {
    this.pool = sessionKernelPool(deps.config, deps.logger);
  }

  /**
   * Runs a cell in the owner's kernel. When no kernel can be started it returns
   * `{ unavailable: why }`, so the caller can run the code one-shot instead.
   */
  async run(request: CellRequest, environment: HostProcessEnvironment): Promise<KernelAnswer> {
    return runInKernel(this.pool, request, () => this.startKernel(request, environment), (kernel) => this.runCell(kernel, request, environment));
  }

  async close(): Promise<void> {
    await this.pool.closeAll();
    await Promise.all([...this.resources.keys()].map((kernel) => this.release(kernel)));
  }

  private async startKernel(request: CellRequest, environment: HostProcessEnvironment): Promise<KernelProcess> {
    const settings = this.deps.config.code_execution;
    const gate = new CallGate(this.deps.registry);
    let staged: Staged | undefined;
    try {
      staged = await stageLaunch({
        environment,
        settings,
        handler: gate.handle,
        files: { 'hermes_tools.py': request.stub },
        argv: kernelArgv,
        readOnly: [dirname(kernelRunnerPath())],
        passthrough: request.passthrough,
        logger: this.deps.logger,
      });
      const kernel = await KernelProcess.start(staged.command, { graceMs: settings.kill_grace * 1000, logger: this.deps.logger });
      this.resources.set(kernel, { staged, gate, cwd: environment.cwd });
      void kernel.exited.then(() => this.release(kernel));
      return kernel;
    } catch (error) {
      await staged?.release();
      throw error instanceof KernelStartError ? error : new KernelStartError(errorMessage(error), { cause: error });
    }
  }

  private async release(kernel: KernelProcess): Promise<void> {
    const resources = this.resources.get(kernel);
    if (!resources) return;
    this.resources.delete(kernel);
    await resources.staged.release();
  }

  private async runCell(kernel: KernelProcess, request: CellRequest, environment: HostProcessEnvironment): Promise<ExecuteCodeResult> {
    const resources = this.resources.get(kernel)!;
    if (this.deps.config.code_execution.mode === 'project' && resources.cwd !== environment.cwd) await this.follow(kernel, resources, environment.cwd);
    return runGatedCell(resources.gate, request, this.deps.config, this.deps.spillFor(environment), (io) => kernel.runCell(request.code, io));
  }

  /**
   * A terminal `cd` moved the session's working folder since this kernel's last cell: the
   * resident kernel moves too (a cell of its own, not counted and not shown), so the next
   * execute_code starts there as a fresh script would. A folder it cannot enter leaves it where it is.
   */
  private async follow(kernel: KernelProcess, resources: KernelResources, cwd: string): Promise<void> {
    const outcome = await kernel.runCell(`__import__("os").chdir(${JSON.stringify(cwd)})`, {
      timeoutMs: 10_000,
      uncounted: true,
      onStdout() {},
      onStderr() {},
    });
    if (outcome.kind === 'ok') resources.cwd = cwd;
  }
}

