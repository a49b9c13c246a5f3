import type { Tool, ToolContext } from './types.js';
import { errorMessage } from '../shared/errors.js';

/** The tools the gateway knows, by name. One registry serves the model and scripts alike. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: Tool): this {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  /**
   * Runs a tool by name. Unknown tools, thrown errors and non-object arguments become
   * `{ error }`: nothing throws back into the model or a script.
   */
  async dispatch(name: string, args: unknown, ctx: ToolContext): Promise<unknown> {
    const tool = this.tools.get(name);
    if (!tool) return { error: `Unknown tool '${name}'. Available: ${this.names().sort().join(', ')}` };
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return { error: `Invalid arguments for ${name}: expected an object of named arguments` };
    }
    try {
      return await tool.handler((args ?? {}) as Record<string, unknown>, ctx);
    } catch (error) {
      ctx.logger.warn({ tool: name, err: error }, 'tool handler threw');
      return { error: `${name} failed: ${errorMessage(error)}` };
    }
  }
}
