import type { ToolRegistry } from '../tools/registry.js';
import type { ToolContext } from '../tools/types.js';
import type { ToolCallRequest } from './model-client.js';

export type ParsedArgs = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Reads the model's argument text as JSON; bad JSON becomes an error the model can act on.
 * Nothing else is checked here: the registry checks for an object and each tool's schema
 * checks the fields, once each, for the model and for scripts alike.
 */
export function parseToolArguments(call: ToolCallRequest): ParsedArgs {
  const raw = call.arguments.trim();
  if (!raw) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) };
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

/** Runs one tool call of the model: unknown or disabled tools and bad arguments come back as `{ error }`. */
export async function runToolCall(
  call: ToolCallRequest,
  registry: ToolRegistry,
  enabled: ReadonlySet<string>,
  ctx: ToolContext,
): Promise<{ args: unknown; result: unknown }> {
  if (!enabled.has(call.name) || !registry.has(call.name)) {
    return {
      args: call.arguments,
      result: { error: `Unknown tool '${call.name}'. Available tools: ${[...enabled].sort().join(', ')}` },
    };
  }
  const parsed = parseToolArguments(call);
  if (!parsed.ok) return { args: call.arguments, result: { error: parsed.error } };
  return { args: parsed.value, result: await registry.dispatch(call.name, parsed.value, ctx) };
}
