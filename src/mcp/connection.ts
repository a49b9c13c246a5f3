import { setTimeout as sleep } from 'node:timers/promises';
import pRetry from 'p-retry';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { openTransport, type OpenedTransport } from './transport.js';
import type { McpServerSettings, McpServerState, McpServerStatus } from './types.js';

/** Backoff between tries: 0.5 s, 1 s, 2 s, … up to a minute. */
export const RETRY_MIN_MS = 500;
export const RETRY_MAX_MS = 60_000;
const FACTOR = 2;
/** A server that stayed up this long before it died is started again at once; sooner, after a growing wait. */
const STABLE_MS = 30_000;
/** How long a server has to answer the ping that follows a transport error. */
const PING_TIMEOUT_MS = 5000;
/** Pages of tools/list read at most (a server that never stops paging is cut off). */
const MAX_PAGES = 50;

const delayAfter = (failures: number) => Math.min(RETRY_MIN_MS * FACTOR ** failures, RETRY_MAX_MS);

/** A call's outcome: the MCP result as the server gave it, or why there is none. */
export type McpCallOutcome = { result: CallToolResult } | { error: string };

/**
 * One MCP server, kept alive: connects (stdio or streamable HTTP), lists its tools, and when
 * a try fails or the server dies, tries again with exponential backoff (p-retry) until it is
 * stopped. Nothing here throws at its callers: a server that is down answers calls with an
 * error that says so and when the next try is.
 */
export class McpConnection {
  private state: McpServerState = 'stopped';
  private client?: Client;
  private opened?: OpenedTransport;
  private tools: McpTool[] = [];
  private error?: string;
  private restarts = 0;
  private crashes = 0;
  private retryAt?: number;
  private readyAt = 0;
  private lifetime?: AbortController;
  private checking = false;

  constructor(
    readonly name: string,
    readonly settings: McpServerSettings,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logger: Logger,
    /** Called whenever its state or tool list changes. */
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** Starts it; resolves once the first try has succeeded or failed (later tries go on in the background). */
  start(): Promise<void> {
    if (this.lifetime) return Promise.resolve();
    this.lifetime = new AbortController();
    return new Promise((resolve) => this.supervise(this.lifetime!.signal, 0, resolve));
  }

  /** Stops it for good: no more tries, the client closed (a stdio server's process ends). */
  async stop(): Promise<void> {
    this.lifetime?.abort(new Error(`MCP server ${this.name} stopped`));
    const client = this.client;
    this.client = undefined;
    this.set('stopped');
    await client?.close().catch(() => undefined);
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      transport: this.settings.url !== '' ? 'http' : 'stdio',
      state: this.state,
      tools: this.state === 'ready' ? this.tools.length : 0,
      scripts: this.settings.scripts,
      restarts: this.restarts,
      ...(this.error && this.state !== 'ready' ? { error: this.error } : {}),
      ...(this.state === 'failed' && this.retryAt ? { retryAt: this.retryAt } : {}),
      ...(this.state === 'ready' && this.opened?.pid() ? { pid: this.opened.pid() } : {}),
    };
  }

  /** The server's tools while it is ready (none otherwise). */
  listTools(): readonly McpTool[] {
    return this.state === 'ready' ? this.tools : [];
  }

  /** Calls one tool. A server that is down, a timeout or a broken connection come back as `{ error }`. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallOutcome> {
    const client = this.client;
    if (this.state !== 'ready' || !client) return { error: this.downText() };
    try {
      const answer = await client.callTool({ name: tool, arguments: args }, undefined, {
        // The SDK never removes the abort listener it adds: it gets a signal of this call's own, which goes with the call.
        signal: AbortSignal.any([signal]),
        timeout: this.settings.call_timeout * 1000,
      });
      // The SDK also accepts the protocol's old `{ toolResult }` answer: read, not cast, to the current shape.
      const result = CallToolResultSchema.safeParse(answer);
      if (!result.success) return { error: `MCP server ${this.name}: ${tool}: the answer is not a tool result of the current protocol` };
      return { result: result.data };
    } catch (error) {
      if (signal.aborted) return { error: `MCP call ${this.name}/${tool} was stopped: ${String(signal.reason)}` };
      // The server answered with a JSON-RPC error (unknown tool, bad arguments, its timeout): it is still up.
      // ConnectionClosed is the SDK's own: the transport ended with the call pending.
      if (error instanceof McpError && error.code !== ErrorCode.ConnectionClosed) return { error: `MCP server ${this.name}: ${tool}: ${error.message}` };
      // Anything else is the transport (an HTTP server that went away): take it down and start again.
      this.logger.warn({ mcp: this.name, err: errorMessage(error) }, 'MCP call failed on the transport; reconnecting');
      if (this.client === client) void client.close().catch(() => undefined);
      return { error: `MCP server ${this.name} could not be reached for ${tool}: ${errorMessage(error)}; it is being reconnected` };
    }
  }

  /** Why calls are refused now, and when the next try is. */
  downText(): string {
    const when = this.retryAt ? `; the next try is in ${Math.max(0, Math.ceil((this.retryAt - Date.now()) / 1000))} s` : '';
    const why = this.error ? `: ${this.error}` : '';
    if (this.state === 'starting') return `MCP server ${this.name} is still starting; try again in a moment`;
    if (this.state === 'stopped') return `MCP server ${this.name} is stopped`;
    return `MCP server ${this.name} is down${why}${when}`;
  }

  /** Tries until connected (or stopped), then watches for the end of the connection. */
  private supervise(signal: AbortSignal, waitMs: number, firstTried?: () => void): void {
    this.set('starting');
    const run = async () => {
      if (waitMs > 0) {
        this.retryAt = Date.now() + waitMs;
        this.set('failed');
        await sleep(waitMs, undefined, { signal, ref: false });
        this.set('starting');
      }
      await pRetry(() => this.connect(signal), {
        retries: Infinity,
        minTimeout: RETRY_MIN_MS,
        maxTimeout: RETRY_MAX_MS,
        factor: FACTOR,
        signal,
        unref: true,
        onFailedAttempt: ({ error, retriesConsumed }) => {
          this.error = error.message;
          this.retryAt = Date.now() + delayAfter(retriesConsumed);
          this.set('failed');
          this.logger.warn({ mcp: this.name, err: error.message, retryInMs: delayAfter(retriesConsumed) }, `MCP server ${this.name} failed to start`);
          firstTried?.();
        },
      });
    };
    run().then(
      () => firstTried?.(),
      () => firstTried?.(), // only an abort (stop) ends the loop
    );
  }

  /** One try: start the transport, initialize, list the tools. Throws a plain Error on failure. */
  private async connect(signal: AbortSignal): Promise<void> {
    let opened: OpenedTransport | undefined;
    const client = new Client({ name: 'hermes-gateway', version: '0.1.0' }, {
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (error || !tools || this.client !== client) return;
            this.tools = tools;
            this.onChange();
          },
        },
      },
    });
    try {
      opened = openTransport(this.name, this.settings, this.env, this.logger);
      // A signal of this try's own: the SDK leaves an abort listener on every signal it is given.
      const attempt = AbortSignal.any([signal]);
      await client.connect(opened.transport, { signal: attempt, timeout: this.settings.connect_timeout * 1000 });
      const tools = await this.readTools(client, attempt);
      if (signal.aborted) throw new Error('stopped');
      this.client = client;
      this.opened = opened;
      this.tools = tools;
      this.error = undefined;
      this.retryAt = undefined;
      this.readyAt = Date.now();
      client.onclose = () => this.closed(client);
      // An HTTP server that goes away shows first as an error on its event stream: ask it, and start again if it does not answer.
      client.onerror = () => this.check(client);
      this.set('ready');
      this.logger.info({ mcp: this.name, tools: tools.length }, `MCP server ${this.name} is ready`);
    } catch (error) {
      await client.close().catch(() => undefined);
      const tail = opened?.stderrTail();
      // p-retry gives up at once on a TypeError: every failure here is a plain Error, so it tries again.
      throw new Error(`${errorMessage(error)}${tail ? ` (stderr: ${tail})` : ''}`);
    }
  }

  private async readTools(client: Client, signal: AbortSignal): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: this.settings.connect_timeout * 1000 });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** After a transport error: a ping the server does not answer closes the connection (and so starts it again). */
  private check(client: Client): void {
    if (this.client !== client || this.checking) return;
    this.checking = true;
    client
      .ping({ timeout: PING_TIMEOUT_MS })
      .catch(() => {
        if (this.client !== client) return;
        this.logger.warn({ mcp: this.name }, `MCP server ${this.name} does not answer after a transport error; reconnecting`);
        return client.close();
      })
      .catch(() => undefined)
      .finally(() => (this.checking = false));
  }

  /** The connection ended: unless stopped, the server is started again (at once if it had been up a while). */
  private closed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    const signal = this.lifetime?.signal;
    if (!signal || signal.aborted) return;
    const tail = this.opened?.stderrTail();
    this.error = `the server ${this.settings.url !== '' ? 'connection closed' : 'exited'}${tail ? ` (stderr: ${tail})` : ''}`;
    this.crashes = Date.now() - this.readyAt >= STABLE_MS ? 0 : this.crashes + 1;
    this.restarts++;
    this.logger.warn({ mcp: this.name, restarts: this.restarts }, `MCP server ${this.name} went away: ${this.error}; starting it again`);
    this.supervise(signal, this.crashes === 0 ? 0 : delayAfter(this.crashes - 1));
  }

  private set(state: McpServerState): void {
    this.state = state;
    this.onChange();
  }
}
