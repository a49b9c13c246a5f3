import type { HostCommand } from '../../environments/types.js';
import { FrameKernel } from './frame-kernel.js';
import { KernelWiring } from './kernel-wiring.js';
import { SocketTransport } from './socket-transport.js';
import type { KernelExit, KernelStartOptions } from './types.js';

/**
 * One resident Python kernel on this host (kernel_runner.py): a child that leads its own
 * process group, runs cells in one persistent namespace, and is reached over Unix socket
 * pairs (socket-transport.ts, which also keeps the supervisor). The cells' state machine is
 * FrameKernel's, the same as a kernel over a backend's stream.
 */
export class KernelProcess extends FrameKernel {
  /**
   * Settles once the kernel process has exited and its group was killed, however it
   * ended (a cell's outcome, `kill()`, death while idle). Never rejects.
   */
  readonly exited: Promise<KernelExit>;

  private constructor(transport: SocketTransport, wiring: KernelWiring, options: KernelStartOptions) {
    super(transport, wiring, options.logger);
    this.exited = transport.exitInfo;
  }

  /**
   * Spawns `command` (normally `kernelArgv(python)`, possibly wrapped by a sandbox) as the
   * leader of a new process group and waits until the runner reports ready.
   * @throws KernelStartError when it cannot be spawned, exits, or is not ready in time.
   */
  static async start(command: HostCommand, options: KernelStartOptions = {}): Promise<KernelProcess> {
    const wiring = new KernelWiring();
    const transport = await SocketTransport.open(command, wiring, options);
    return new KernelProcess(transport, wiring, options);
  }
}
