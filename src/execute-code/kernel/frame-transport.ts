/**
 * What carries kernel_runner.py's protocol between the gateway and one kernel: control frames
 * out, fd 1, fd 2 and control bytes in (through the KernelWiring it was opened with), and the
 * kernel's end. Two exist: a Unix socket to a child here (socket-transport.ts) and stream
 * frames over a backend's stream (remote/stream-transport.ts). The polled-file kernel speaks
 * another protocol (remote_kernel_runner.py) and implements `Kernel` itself.
 */
export interface FrameTransport {
  /** The kernel's pid where it runs (it leads its own group there). */
  readonly pid: number;
  /** Settles when the kernel process is gone (its last output may still be on the way). Never rejects. */
  readonly exited: Promise<void>;
  /**
   * Settles once the kernel is gone and what it wrote was delivered (or a bound passed);
   * the value says how it ended: `killed by SIGKILL`, `exited with code 1`, a lost stream. Never rejects.
   */
  readonly ended: Promise<string>;
  /** Writes one control frame to the kernel. */
  send(frame: Buffer): void;
  /** A running cell keeps Node's event loop alive; an idle kernel does not (`unref`). */
  ref(): void;
  unref(): void;
  /**
   * After a cell that ended normally: kills what it left behind (a `setsid` child). Undefined
   * when nothing is left, so the cell completes at once.
   */
  sweep(): Promise<void> | undefined;
  /** A cell ended abnormally: ends the kernel's whole group and resolves once what it wrote is in (or a bound passed). */
  terminate(): Promise<void>;
  /** Ends the kernel's group and frees what the transport holds. Idempotent. */
  close(): Promise<void>;
}
