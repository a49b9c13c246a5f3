import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import type { Tool, ToolContext } from '../tools/types.js';
import type { Semaphore } from '../shared/semaphore.js';
import { abortText } from '../shared/notices.js';
import type { TurnResult } from './types.js';

/** A subagent's outcome; `reason` is the abort reason when it was interrupted. */
export type SubagentResult = TurnResult & { reason?: string };

/** How many delegations deep an owner id is: `s-1` is 0, `s-1::child::2` is 1. */
export function delegateDepth(sessionId: string): number {
  return sessionId.split('::child::').length - 1;
}

export interface SubagentRequest {
  /** The subagent's kernel owner id, `<session>::child::<n>`. */
  owner: string;
  goal: string;
  context?: string;
  /** Tool names the subagent may use (within the parent's); all of the parent's when absent. */
  tools?: string[];
  parent: ToolContext;
}

export interface DelegateToolOptions {
  maxDepth: number;
  /** Bounds the subagents running at once (agent.max_concurrent_children). */
  limiter: Semaphore;
  /** Allocates the next owner id under a parent. */
  nextOwner(parentSessionId: string): string;
  runSubagent(request: SubagentRequest): Promise<SubagentResult>;
}

/** `delegate_task(goal, context?, tools?)`: a subagent with a fresh history returns its final summary. */
export function delegateTool(options: DelegateToolOptions): Tool {
  return defineTool({
    name: 'delegate_task',
    description:
      'Hand a self-contained goal to a subagent that starts with a fresh history and its own Python kernel, and ' +
      "get back its final summary. It cannot see this conversation: put what it needs in `context`. Optionally limit " +
      `its tools by name. At most ${options.limiter.limit} subagents run at once; several delegate_task calls in one ` +
      'reply run in parallel.',
    args: z.object({
      goal: z.string().min(1).describe('What the subagent should achieve, stated completely'),
      context: z.string().optional().describe('Facts, paths and constraints the subagent needs'),
      tools: z.array(z.string()).optional().describe("Tool names the subagent may use (default: the same as yours)"),
    }),
    async run({ goal, context, tools }, ctx) {
      const depth = delegateDepth(ctx.sessionId);
      if (depth >= options.maxDepth) {
        return {
          error: `delegate_task is not available at delegation depth ${depth} (agent.max_delegate_depth = ${options.maxDepth}); do the work yourself.`,
        };
      }
      let release: () => void;
      try {
        release = await options.limiter.acquire(ctx.signal);
      } catch {
        return { error: `[Tool execution skipped — delegate_task was not started. ${abortText(ctx.signal)}]` };
      }
      const owner = options.nextOwner(ctx.sessionId);
      try {
        const result = await options.runSubagent({ owner, goal, context, tools, parent: ctx });
        if (result.status === 'completed') return { status: 'completed', summary: result.text };
        if (result.status === 'interrupted') {
          return { status: 'interrupted', error: `[subagent interrupted — ${result.reason ?? 'interrupted'}]` };
        }
        if (result.status === 'max_iterations') return { status: 'max_iterations', summary: result.text };
        return { status: 'error', error: `The subagent failed: ${result.text}` };
      } finally {
        release();
      }
    },
  });
}
