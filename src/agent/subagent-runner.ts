import type { HermesConfig } from '../config/index.js';
import type { CodeExecutor } from '../execute-code/index.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Compactor } from './context/compactor.js';
import { Conversation, memoryViewStore } from './context/conversation.js';
import type { ContextWindows } from './context/window.js';
import { delegateDepth, type SubagentRequest, type SubagentResult } from './delegate.js';
import { runLoop } from './loop.js';
import type { ModelClient } from './model-client.js';
import type { SessionResources } from './session-resources.js';
import type { ToolSet } from './tool-set.js';
import type { SystemPrompts } from './turn-prompt.js';
import { turnCompaction } from './turn-compaction.js';

export interface SubagentRunnerOptions {
  config: HermesConfig;
  logger: Logger;
  client: ModelClient;
  tools: ToolSet;
  resources: SessionResources;
  executor?: CodeExecutor;
  prompts: SystemPrompts;
  compactor: Compactor;
  windows: ContextWindows;
  /** The model a session's turns use (its thread's /model), which its subagents use too. */
  modelFor(sessionId: string): string;
  abandonAfterMs: number;
}

/**
 * Runs delegate_task's subagents: a fresh history kept in memory (compacted like a session's),
 * the parent's environment with its own skill variables, its own kernel that ends with it,
 * and the parent's tools or fewer.
 */
export class SubagentRunner {
  constructor(private readonly options: SubagentRunnerOptions) {}

  async run(request: SubagentRequest): Promise<SubagentResult> {
    const { config, tools, resources } = this.options;
    const parentTools = request.parent.enabledTools ?? tools.enabled;
    let names = tools.within(request.tools, parentTools);
    if (delegateDepth(request.owner) >= config.agent.max_delegate_depth) names = names.filter((name) => name !== 'delegate_task');
    const log = this.options.logger.child({ session: request.owner });
    const { environment, passthrough } = resources.childEnvironment(request.parent.environment, request.owner, request.parent.passthrough ?? []);
    const unpin = this.options.executor?.pin?.(request.owner);
    log.info({ tools: names }, 'subagent started');
    try {
      const goal = request.context ? `${request.goal}\n\nContext:\n${request.context}` : request.goal;
      const conversation = Conversation.empty(memoryViewStore(), { maxArgumentChars: config.compression.max_tool_argument_chars, logger: log });
      conversation.add({ role: 'user', content: goal });
      const root = request.owner.split('::child::')[0];
      const model = this.options.modelFor(root);
      const result = await runLoop({
        client: this.options.client,
        system: this.options.prompts.for(names, true, request.parent.environment),
        conversation,
        ...(model !== config.model.name ? { model } : {}),
        compaction: turnCompaction({
          compactor: this.options.compactor,
          windows: this.options.windows,
          conversation,
          owner: request.owner,
          model,
          signal: request.parent.signal,
        }),
        registry: tools.registry,
        enabled: new Set(names),
        context: { ...request.parent, sessionId: request.owner, enabledTools: names, passthrough, logger: log, environment },
        maxIterations: config.agent.max_iterations,
        toolResultMaxChars: config.agent.tool_result_max_chars,
        abandonAfterMs: this.options.abandonAfterMs,
        logger: log,
      });
      log.info({ status: result.status }, 'subagent finished');
      return result;
    } catch (error) {
      log.error({ err: error }, 'subagent failed');
      return { status: 'error', text: errorMessage(error) };
    } finally {
      // The subagent's kernel lives as long as the subagent.
      await unpin?.().catch(() => undefined);
      await resources.releaseChild(request.owner, log);
    }
  }
}
