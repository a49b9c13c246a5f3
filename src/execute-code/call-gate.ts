import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';

/** The reason a cell's unfinished tool calls (a `terminal("sleep 300")` in a thread) are stopped with. */
export const CELL_ENDED_REASON = 'the execute_code cell that made this call has ended';

/**
 * Decides what a script's hermes_tools call may do during one execution (or one kernel
 * cell): only allowed tools, at most `maxCalls` of them, dispatched into the same registry
 * the model uses, with the execution's context. Outside an execution every call is refused.
 *
 * A cell owns what it starts: every call runs with the cell's own signal (aborted with the
 * turn's), and closing the gate aborts it, so a command still running — however the cell
 * ended — has its process group killed, and its late answer is replaced by an error.
 */
export class CallGate {
  private current?: { allowed: ReadonlySet<string>; maxCalls: number; context: ToolContext; calls: number };

  constructor(private readonly registry: ToolRegistry) {}

  /** Opens the gate for one execution; the returned function closes it, stops what its calls still run, and returns the count. */
  open(options: { allowed: ReadonlySet<string>; maxCalls: number; context: ToolContext }): () => number {
    const cell = new AbortController();
    const turn = options.context.signal;
    const onTurnAbort = () => cell.abort(turn.reason);
    if (turn.aborted) onTurnAbort();
    else turn.addEventListener('abort', onTurnAbort, { once: true });
    const state = { ...options, context: { ...options.context, signal: cell.signal }, calls: 0 };
    this.current = state;
    return () => {
      if (this.current === state) this.current = undefined;
      turn.removeEventListener('abort', onTurnAbort);
      if (!cell.signal.aborted) cell.abort(CELL_ENDED_REASON);
      return state.calls;
    };
  }

  /** Calls made so far in the open execution. */
  get callsMade(): number {
    return this.current?.calls ?? 0;
  }

  readonly handle = async (tool: string, args: unknown): Promise<unknown> => {
    const state = this.current;
    if (!state) return { error: 'No active execute_code cell' };
    if (!state.allowed.has(tool)) {
      return {
        error: `Tool '${tool}' is not available in execute_code. Available: ${[...state.allowed].sort().join(', ')}`,
      };
    }
    if (state.calls >= state.maxCalls) {
      return { error: `Tool call limit reached (${state.maxCalls}). No more tool calls allowed in this execution.` };
    }
    state.calls++;
    const result = await this.registry.dispatch(tool, args, state.context);
    // The cell ended while the call ran: its answer is stale (and was cut short), so it is not delivered.
    if (this.current !== state) return { error: `No active execute_code cell: ${CELL_ENDED_REASON} before '${tool}' finished` };
    return result;
  };
}
