import { connect, type Socket } from 'node:net';

/** Where a relayed connection's bytes go back to: frames on the stream. */
export interface RelaySink {
  data(id: number, data: Buffer): void;
  close(id: number): void;
}

/**
 * The gateway's side of the script's RPC connections on a stream: each connection the runner
 * announces becomes a connection to the gateway's own RpcServer on a local Unix socket, bytes
 * copied both ways. The server does everything else as it does for a local script (token,
 * framing, caps, in-flight limits, refusals), so a remote script is held to the same bounds.
 */
export class RpcRelay {
  readonly #sockets = new Map<number, Socket>();

  constructor(
    private readonly socketPath: string,
    /** Connections relayed at once; the server refuses past its own cap, this bounds our descriptors. */
    private readonly maxConnections: number,
    private readonly sink: RelaySink,
  ) {}

  /** Relays connection `id`; past the cap it is refused at once (`refuse(id)`). */
  open(id: number, refuse: (id: number) => void): void {
    if (this.#sockets.has(id) || this.#sockets.size >= this.maxConnections + 8) return refuse(id);
    const socket = connect(this.socketPath);
    socket.setNoDelay?.(true);
    this.#sockets.set(id, socket);
    socket.on('data', (chunk: Buffer) => this.sink.data(id, chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      // Closed here first (the server refused or dropped it): the script's end is told.
      if (this.#sockets.get(id) === socket) {
        this.#sockets.delete(id);
        this.sink.close(id);
      }
    });
  }

  write(id: number, data: Buffer): void {
    this.#sockets.get(id)?.write(data);
  }

  /** The script closed connection `id`. */
  end(id: number): void {
    const socket = this.#sockets.get(id);
    if (!socket) return;
    this.#sockets.delete(id);
    socket.end();
  }

  /** The stream ended: every relayed connection goes. */
  closeAll(): void {
    for (const socket of this.#sockets.values()) socket.destroy();
    this.#sockets.clear();
  }

  get size(): number {
    return this.#sockets.size;
  }
}
