import { z } from 'zod';
import type { Tool, ToolContext } from './types.js';
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
 * are checked against it, and a handler that throws becomes `{ error }`.
 */
export function defineTool<S extends z.ZodObject>(spec: {
  name: string;
  description: string;
  args: S;
  run(args: z.output<S>, ctx: ToolContext): Promise<unknown>;
}): Tool {
  let parameters: Record<string, unknown> | undefined;
  return {
    name: spec.name,
    description: spec.description,
    // Converted when first read (by the agent loop, for the model): `hermes exec` builds every script tool and reads none.
    get parameters(): Record<string, unknown> {
      if (!parameters) {
        parameters = z.toJSONSchema(spec.args, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
        delete parameters.$schema;
      }
      return parameters;
    },
    async handler(raw, ctx) {
      const parsed = spec.args.safeParse(raw ?? {}, { reportInput: true });
      if (!parsed.success) return { error: describeIssues(spec.name, parsed.error.issues) };
      try {
        return await spec.run(parsed.data, ctx);
      } catch (error) {
        ctx.logger.debug({ tool: spec.name, err: error }, 'tool handler threw');
        return { error: `${spec.name} failed: ${errorMessage(error)}` };
      }
    },
  };
}
