import { z } from 'zod';
import type { Tool, ToolContext, ToolOutcome, ToolResult } from './types.js';
import { errorMessage } from '../shared/errors.js';

/** What every call's arguments must be: an object of named arguments (not an array, not null). */
const namedArguments = z.record(z.string(), z.unknown());

/**
 * Tools that come and go while the gateway runs (MCP servers): asked for at every look-up,
 * never copied. A name the registry has registered itself always wins over a source's.
 */
export interface ToolSource {
  /** Tools for the model and scripts alike. */
  tools(): readonly Tool[];
  /** Tools only scripts reach by name over the RPC; never offered to the model. */
  scriptTools?(): readonly Tool[];
}

/** The tools the gateway knows, by name. One registry serves the model and scripts alike. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly attached: ToolSource[] = [];

  constructor(tools: Iterable<Tool> = [], sources: Iterable<ToolSource> = []) {
    for (const tool of tools) this.register(tool);
    for (const source of sources) this.attach(source);
  }

  register(tool: Tool): this {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    this.tools.set(tool.name, tool);
    return this;
  }

  /** Adds a source of changing tools; its tools are looked up live. */
  attach(source: ToolSource): this {
    if (!this.attached.includes(source)) this.attached.push(source);
    return this;
  }

  /** The attached sources (a registry built from this one's tools keeps them live with these). */
  get sources(): readonly ToolSource[] {
    return this.attached;
  }

  /** The tools registered here, without any source's. */
  registered(): Tool[] {
    return [...this.tools.values()];
  }

  /** A tool by name: registered ones first, then the sources' (the model's, then the script-only ones). */
  get(name: string): Tool | undefined {
    const own = this.tools.get(name);
    if (own) return own;
    for (const source of this.attached) {
      const found = source.tools().find((tool) => tool.name === name) ?? source.scriptTools?.().find((tool) => tool.name === name);
      if (found) return found;
    }
    return undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Names the model can be offered: registered ones, then the sources' that no registered tool shadows. */
  names(): string[] {
    return this.list().map((tool) => tool.name);
  }

  list(): Tool[] {
    const out = [...this.tools.values()];
    const taken = new Set(this.tools.keys());
    for (const source of this.attached) {
      for (const tool of source.tools()) {
        if (taken.has(tool.name)) continue;
        taken.add(tool.name);
        out.push(tool);
      }
    }
    return out;
  }

  /**
   * Runs a tool: by name (the model's and scripts' calls), or the tool itself, whose typed
   * result comes back. Unknown tools, thrown errors and non-object arguments become
   * `{ error }`: nothing throws back into the model or a script.
   */
  dispatch<Out extends ToolResult>(tool: Tool<never, Out>, args: unknown, ctx: ToolContext): Promise<ToolOutcome<Out>>;
  dispatch(name: string, args: unknown, ctx: ToolContext): Promise<ToolOutcome<ToolResult>>;
  async dispatch(named: string | Tool<never>, args: unknown, ctx: ToolContext): Promise<ToolOutcome<ToolResult>> {
    const name = typeof named === 'string' ? named : named.name;
    const tool = typeof named === 'string' ? this.get(named) : named;
    if (!tool) return { error: `Unknown tool '${name}'. Available: ${this.names().sort().join(', ')}` };
    const parsed = namedArguments.safeParse(args === undefined ? {} : args);
    if (!parsed.success) return { error: `Invalid arguments for ${name}: expected an object of named arguments` };
    try {
      return await tool.handler(parsed.data, ctx);
    } catch (error) {
      ctx.logger.warn({ tool: name, err: error }, 'tool handler threw');
      return { error: `${name} failed: ${errorMessage(error)}` };
    }
  }
}
