import { FrameReader, MAX_INBOUND_FRAME, type Frame } from './frames.js';

/** kernel_runner.py's control protocol version (its `H` frame). */
const PROTOCOL_VERSION = '1';
const STDERR_KEEP = 4096;

/** Where a started kernel's output and control frames go (the FrameKernel). */
export interface KernelSink {
  onStdout(chunk: Buffer): void;
  onStderr(chunk: Buffer): void;
  onFrame(frame: Frame): void;
  onProtocolError(why: string): void;
}

/** Why a kernel did not get to its hello (`message`), with the tail of what it wrote to stderr. */
export class StartFailure extends Error {
  constructor(
    why: string,
    readonly stderr: string,
  ) {
    super(why);
  }
}

/**
 * Routes what a transport carries of kernel_runner.py — fd 1, fd 2, control bytes — during
 * start-up to the hello wait, then to the kernel (the transport exists before the kernel
 * does). The same for a Unix socket here and stream frames on a backend.
 */
export class KernelWiring {
  #target: KernelSink | undefined;
  /** The kernel's hello came. It may come before `ready()` is called: a stream hands over the runner's hello and the kernel's in one chunk. */
  #greeted = false;
  /** Why the start failed before anyone waited (a wrong first frame). */
  #refused: string | undefined;
  #hello: { resolve(): void; reject(why: string): void } | undefined;
  /** What the kernel wrote to stderr before it was ready (an ImportError of the stub, say). */
  #earlyStderr = '';
  readonly #frames = new FrameReader(
    MAX_INBOUND_FRAME,
    (frame) => this.#onFrame(frame),
    (why) => (this.#greeted ? this.#target?.onProtocolError(why) : this.#refuse(`it broke the control protocol: ${why}`)),
  );

  readonly listeners = {
    onStdout: (chunk: Buffer) => this.#target?.onStdout(chunk),
    onStderr: (chunk: Buffer) => {
      if (this.#target) this.#target.onStderr(chunk);
      else this.#earlyStderr = (this.#earlyStderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    },
    onControl: (chunk: Buffer) => this.#frames.push(chunk),
  };

  /**
   * Waits for the kernel's `H` frame (at once when it came already); rejects with a
   * StartFailure on a timeout, a wrong first frame, or `ended` settling first (its value says
   * why: `it exited with code 1`).
   */
  ready(timeoutMs: number, ended: Promise<string>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        this.#hello = undefined;
        reject(new StartFailure(why, this.#earlyStderr.trim()));
      };
      const timer = setTimeout(() => fail(`it did not report ready within ${timeoutMs} ms`), timeoutMs);
      if (this.#greeted) return (clearTimeout(timer), resolve());
      if (this.#refused !== undefined) return fail(this.#refused);
      this.#hello = {
        resolve: () => {
          clearTimeout(timer);
          this.#hello = undefined;
          resolve();
        },
        reject: fail,
      };
      void ended.then((why) => this.#hello && fail(why));
    });
  }

  attach(target: KernelSink): void {
    this.#target = target;
  }

  #onFrame(frame: Frame): void {
    if (this.#greeted) return this.#target?.onFrame(frame);
    if (frame.kind === 'H' && frame.payload.toString('latin1') === PROTOCOL_VERSION) {
      this.#greeted = true;
      this.#hello?.resolve();
    } else {
      this.#refuse(`it broke the control protocol: unexpected ${JSON.stringify(frame.kind)} frame at start (is kernel_runner.py of another version?)`);
    }
  }

  #refuse(why: string): void {
    this.#refused ??= why;
    this.#hello?.reject(why);
  }
}
