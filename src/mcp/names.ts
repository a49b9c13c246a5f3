import { createHash } from 'node:crypto';

/** Every MCP tool the model sees starts with this; no built-in tool does. */
export const MCP_TOOL_PREFIX = 'mcp__';
/** The longest function name the chat-completions API takes. */
export const MAX_TOOL_NAME = 64;
/** Characters a function name may hold; anything else in an MCP tool's name is replaced. */
const ODD = /[^A-Za-z0-9_-]/g;

/**
 * The model's name for `tool` of `server`: `mcp__<server>__<tool>`. Server names hold no
 * `__` (the config schema refuses it), so the server part ends at the first `__`. A tool
 * name with odd characters, or too long, keeps a readable part and gets a hash of its
 * exact name, so `a.b` and `a_b` stay two tools and no spelling reaches a built-in's name.
 */
export function modelToolName(server: string, tool: string): string {
  const clean = tool.replace(ODD, '_');
  const plain = `${MCP_TOOL_PREFIX}${server}__${clean}`;
  if (clean === tool && clean !== '' && plain.length <= MAX_TOOL_NAME) return plain;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${plain.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}
