import { z } from 'zod';
import { isToolError, type Tool, type ToolContext, type ToolError, type ToolOutcome, type ToolResult } from './types.js';
import { errorMessage } from '../shared/errors.js';

/** Words for a zod issue, as the model will read them: `limit: expected number, got "ten"`. */
function describeIssues(tool: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'arguments';
    const got = 'input' in issue && issue.input !== undefined ? `, got ${JSON.stringify(issue.input)}`.slice(0, 80) : '';
    return `${where}: ${issue.message}${got}`;
  });
  return `Invalid arguments for ${tool}: ${lines.join('; ')}`;
}

/**
 * Builds a Tool from a zod schema: the JSON schema for the model comes from it, arguments
 * are checked against it, and a handler that throws becomes `{ error }`. The tool's types
 * come from the schema (`In`, before defaults) and from `run` (`Out`).
 */
export function defineTool<S extends z.ZodObject, Out extends ToolResult>(spec: {
  name: string;
  description: string;
  args: S;
  /** The JSON schema the model is shown, when the tool did not write it (an MCP server's); else made from `args`. */
  parameters?: Record<string, unknown>;
  /** The description for a session's enabled tools, when it depends on them. */
  describe?(enabled: ReadonlySet<string>): string;
  /**
   * Looks at the arguments as they came, before the schema: renames aliases, or refuses
   * arguments meant for another tool with a clearer error than the schema's.
   */
  prepare?(raw: Record<string, unknown>, ctx: ToolContext): Record<string, unknown> | ToolError;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolOutcome<Out>>;
}): Tool<z.input<S>, Out> {
  let parameters: Record<string, unknown> | undefined;
  const checked = async (raw: unknown, ctx: ToolContext): Promise<ToolOutcome<Out>> => {
    // reportInput (for the message) keeps zod off its compiled fast path: only a failed parse pays for it.
    const first = spec.args.safeParse(raw ?? {});
    const parsed = first.success ? first : spec.args.safeParse(raw ?? {}, { reportInput: true });
    if (!parsed.success) return { error: describeIssues(spec.name, parsed.error.issues) };
    try {
      return await spec.run(parsed.data, ctx);
    } catch (error) {
      ctx.logger.debug({ tool: spec.name, err: error }, 'tool handler threw');
      return { error: `${spec.name} failed: ${errorMessage(error)}` };
    }
  };
  return {
    name: spec.name,
    description: spec.description,
    ...(spec.describe ? { describe: spec.describe } : {}),
    // Converted when first read (by the agent loop, for the model): `hermes exec` builds every script tool and reads none.
    get parameters(): Record<string, unknown> {
      if (!parameters) parameters = spec.parameters;
      if (!parameters) {
        parameters = z.toJSONSchema(spec.args, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
        delete parameters.$schema;
      }
      return parameters;
    },
    async handler(raw, ctx) {
      const prepared = spec.prepare ? spec.prepare(raw ?? {}, ctx) : raw;
      if (isToolError(prepared)) return prepared;
      return checked(prepared, ctx);
    },
    run: checked,
  };
}
