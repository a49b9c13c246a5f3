import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';

/**
 * Decides what a script's hermes_tools call may do during one execution (or one kernel
 * cell): only allowed tools, at most `maxCalls` of them, dispatched into the same registry
 * the model uses, with the execution's context. Outside an execution every call is refused.
 */
export class CallGate {
  private current?: { allowed: ReadonlySet<string>; maxCalls: number; context: ToolContext; calls: number };

  constructor(private readonly registry: ToolRegistry) {}

  /** Opens the gate for one execution; the returned function closes it and returns the count. */
  open(options: { allowed: ReadonlySet<string>; maxCalls: number; context: ToolContext }): () => number {
    const state = { ...options, calls: 0 };
    this.current = state;
    return () => {
      if (this.current === state) this.current = undefined;
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
    return this.registry.dispatch(tool, args, state.context);
  };
}
