import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';
import type { ToolCallRequest } from './model-client.js';

export type ParsedArgs = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/**
 * Reads the model's argument text. Bad JSON, a non-object, or a missing required argument
 * becomes an error the model can act on; type checks beyond that are the tool's own (zod).
 */
export function parseToolArguments(call: ToolCallRequest, required: readonly string[] = []): ParsedArgs {
  const raw = call.arguments.trim();
  let value: unknown = {};
  if (raw) {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const preview = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
      return {
        ok: false,
        error:
          `Invalid arguments for ${call.name}: not valid JSON (${(error as Error).message}). ` +
          `Received: ${preview}. Send the arguments as one JSON object that matches the tool's schema.`,
      };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `Invalid arguments for ${call.name}: expected a JSON object of named arguments, got ${JSON.stringify(value)}` };
  }
  const args = value as Record<string, unknown>;
  const missing = required.filter((name) => args[name] === undefined);
  if (missing.length > 0) {
    return { ok: false, error: `Invalid arguments for ${call.name}: missing required argument(s) ${missing.join(', ')}` };
  }
  return { ok: true, args };
}

/** The `required` list of a tool's JSON schema. */
export function requiredArguments(parameters: Record<string, unknown>): string[] {
  const required = parameters.required;
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : [];
}

/** Runs one tool call of the model: unknown or disabled tools and bad arguments come back as `{ error }`. */
export async function runToolCall(
  call: ToolCallRequest,
  registry: ToolRegistry,
  enabled: ReadonlySet<string>,
  ctx: ToolContext,
): Promise<{ args: unknown; result: unknown }> {
  const tool = enabled.has(call.name) ? registry.get(call.name) : undefined;
  if (!tool) {
    return {
      args: call.arguments,
      result: { error: `Unknown tool '${call.name}'. Available tools: ${[...enabled].sort().join(', ')}` },
    };
  }
  const parsed = parseToolArguments(call, requiredArguments(tool.parameters));
  if (!parsed.ok) return { args: call.arguments, result: { error: parsed.error } };
  return { args: parsed.args, result: await registry.dispatch(call.name, parsed.args, ctx) };
}
